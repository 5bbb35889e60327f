/**
 * FundsDeposited logs written straight into COPY lines of `crosschain.deposits`: the backfill's hot
 * path. A row's values are the log's own ABI words, so they are sliced and formatted as they are,
 * without building the decoded event (bigints, prefixed strings) and a fact object first and keeping
 * them alive until the range is written: that garbage cost the backfill about a third of its main
 * thread (bench/README, "Reading the crosschain backfill ratio"). The rows hold exactly what
 * `decodeSpokeLog` reads from the same log (depositRows.test.ts checks both on the same logs).
 *
 * @example
 * const rows = createDepositRows(8453);
 * if (log.topics[0] === FUNDS_DEPOSITED_TOPIC) rows.push(log, blockTimestamp);
 * await tx.copyFrom(`COPY crosschain.deposits (${DEPOSIT_COLUMNS.join(", ")}) FROM STDIN`, rows.bytes());
 */
import { keccak256Hex, type RpcLog } from "@platform/chains";
import { createCopyLines } from "@platform/kernel";
import type { Hex } from "viem";
import { internalRelayHashFromWords, RELAY_WORD_NAMES, uintWord } from "../domain/relayHash.ts";
import { spokeEventDecoder } from "../indexer/spokePoolEvents.ts";

/** The columns of a deposit row, in COPY order. */
export const DEPOSIT_COLUMNS = [
  "origin_chain_id",
  "deposit_id",
  "destination_chain_id",
  "relay_hash",
  "depositor",
  "recipient",
  "exclusive_relayer",
  "input_token",
  "output_token",
  "input_amount",
  "output_amount",
  "quote_timestamp",
  "fill_deadline",
  "exclusivity_deadline",
  "message",
  "message_hash",
  "tx_hash",
  "tx_index",
  "log_index",
  "block_number",
  "block_timestamp",
] as const;

const fundsDeposited = spokeEventDecoder("FundsDeposited");
export const FUNDS_DEPOSITED_TOPIC: Hex = fundsDeposited.selector;

/** The relay words (RELAY_WORD_NAMES order), then the words only the row needs. */
const readWords = fundsDeposited.wordsOf([...RELAY_WORD_NAMES, "destinationChainId", "quoteTimestamp"]);
const readMessage = fundsDeposited.bytesOf("message");
const ZERO_WORD = "0".repeat(64);
const ZERO_HASH: Hex = `0x${ZERO_WORD}`;
/** Words whose value fits 52 bits start with 51 zero digits; their value is a safe Number. */
const HIGH_51 = ZERO_WORD.slice(13);
/** uint32 words start with 56 zero digits. */
const HIGH_56 = ZERO_WORD.slice(8);

class NotADeposit extends RangeError {}

/** Decimal text of a uint256 word. */
function uint256Text(word: string): string {
  if (word.startsWith(HIGH_51)) return String(Number.parseInt(word.slice(51), 16));
  return BigInt(`0x${word}`).toString();
}

/** Decimal text of a uint32 word; throws when the word holds more (the ABI decoder refuses it). */
function uint32Text(word: string): string {
  if (!word.startsWith(HIGH_56)) throw new NotADeposit("uint32 out of range");
  return String(Number.parseInt(word.slice(56), 16));
}

/** Decimal text of a chain id word: chain ids are stored as bigint, ours fit 52 bits. */
function chainIdText(word: string): string {
  if (!word.startsWith(HIGH_51)) throw new NotADeposit("chain id out of range");
  return String(Number.parseInt(word.slice(51), 16));
}

export interface DepositRows {
  /** Rows pushed so far. */
  readonly count: number;
  /**
   * Appends the row of a FundsDeposited log of block time `blockTimestamp`; false (nothing written) when
   * the log does not fit the event, as `decodeSpokeLog` skips it.
   */
  push(log: RpcLog, blockTimestamp: number): boolean;
  /** The COPY lines so far (a view, valid until the next push). */
  bytes(): Uint8Array;
}

/** Rows of deposits made on `originChainId`. */
export function createDepositRows(originChainId: number): DepositRows {
  const lines = createCopyLines();
  const here = uintWord(originChainId);
  let count = 0;
  return {
    get count() {
      return count;
    },
    bytes: () => lines.bytes(),
    push(log, blockTimestamp) {
      let line: string;
      try {
        if (log.topics.length !== 4 || log.topics[0] !== FUNDS_DEPOSITED_TOPIC) return false;
        const w = readWords(log.topics, log.data);
        const quoteTimestamp = uint32Text(w.pop() as string);
        const destination = w.pop() as string;
        const [depositor, recipient, exclusiveRelayer, inputToken, outputToken, inputAmount, outputAmount] = w;
        const depositId = w[7] as string;
        const fillDeadline = uint32Text(w[8] as string);
        const exclusivityDeadline = uint32Text(w[9] as string);
        const message = readMessage(log.data);
        const msgHash = message.length === 0 ? ZERO_HASH : keccak256Hex(`0x${message}`);
        const relayHash = internalRelayHashFromWords(w, here, destination, msgHash);
        // bytea fields in COPY text: `\\x` + hex (see copyHexField).
        line = `${originChainId}\t${uint256Text(depositId)}\t${chainIdText(destination)}\t\\\\x${relayHash.slice(2)}\t\\\\x${depositor}\t\\\\x${recipient}\t\\\\x${exclusiveRelayer}\t\\\\x${inputToken}\t\\\\x${outputToken}\t${uint256Text(inputAmount as string)}\t${uint256Text(outputAmount as string)}\t${quoteTimestamp}\t${fillDeadline}\t${exclusivityDeadline}\t\\\\x${message}\t\\\\x${msgHash.slice(2)}\t\\\\x${log.transactionHash.slice(2)}\t${Number(log.transactionIndex)}\t${Number(log.logIndex)}\t${Number(log.blockNumber)}\t${blockTimestamp}\n`;
      } catch (error) {
        if (error instanceof RangeError) return false;
        throw error;
      }
      lines.push(line);
      count++;
      return true;
    },
  };
}
