/**
 * FundsDeposited logs written straight into COPY lines of `crosschain.deposits`: the backfill's hot
 * path. A row's values are the log's own ABI words, so they are sliced and formatted as they are,
 * without building the decoded event (bigints, prefixed strings) and a fact object first and keeping
 * them alive until the range is written: that garbage cost the backfill about a third of its main
 * thread (bench/README, "Reading the crosschain backfill ratio"). The values are the ABI decoder's
 * (depositRows.test.ts checks them against viem's); a log that does not fit the event is skipped.
 *
 * @example
 * const rows = createDepositRows(8453);
 * if (log.topics[0] === FUNDS_DEPOSITED_TOPIC) rows.push(log, block);
 * await tx.copyFrom(`COPY crosschain.deposits (${rows.columns.join(", ")}) FROM STDIN`, rows.bytes());
 */
import type { RpcLog } from "@platform/chains";
import { createCopyLines } from "@platform/kernel";
import type { Hex } from "viem";
import {
  messageHash as hashMessage,
  internalRelayHashFromWords,
  RELAY_WORD_NAMES,
  uintWord,
} from "../domain/relayHash.ts";
import { spokeEventDecoder } from "./spokePoolEvents.ts";

/** The columns of `crosschain.deposits` a row fills, in COPY order. */
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

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Decimal text of a chain id word. Chain ids are stored as `bigint`: a larger one (no chain has one, and
 * no route can lead there) skips the deposit instead of failing its whole range forever.
 */
function chainIdText(word: string): string {
  if (word.startsWith(HIGH_51)) return String(Number.parseInt(word.slice(51), 16));
  const value = BigInt(`0x${word}`);
  if (value > INT64_MAX) throw new NotADeposit("chain id out of range");
  return value.toString();
}

export interface DepositRows {
  /** The table's columns the rows fill, in order. */
  readonly columns: typeof DEPOSIT_COLUMNS;
  /** Rows pushed so far. */
  readonly count: number;
  /**
   * Appends the row of a FundsDeposited log found in `block`; false (nothing written) when the log does
   * not fit the event.
   */
  push(log: RpcLog, block: { number: bigint; timestamp: number }): boolean;
  /** The COPY lines so far (a view, valid until the next push). */
  bytes(): Uint8Array;
}

/** Rows of deposits made on `originChainId`. */
export function createDepositRows(originChainId: number): DepositRows {
  const lines = createCopyLines();
  const here = uintWord(originChainId);
  let count = 0;
  return {
    columns: DEPOSIT_COLUMNS,
    get count() {
      return count;
    },
    bytes: () => lines.bytes(),
    push(log, block) {
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
        const msgHash = hashMessage(`0x${message}`);
        const relayHash = internalRelayHashFromWords(w, here, destination, msgHash);
        // bytea fields in COPY text: `\\x` + hex (see copyHexField).
        line = `${originChainId}\t${uint256Text(depositId)}\t${chainIdText(destination)}\t\\\\x${relayHash.slice(2)}\t\\\\x${depositor}\t\\\\x${recipient}\t\\\\x${exclusiveRelayer}\t\\\\x${inputToken}\t\\\\x${outputToken}\t${uint256Text(inputAmount as string)}\t${uint256Text(outputAmount as string)}\t${quoteTimestamp}\t${fillDeadline}\t${exclusivityDeadline}\t\\\\x${message}\t\\\\x${msgHash.slice(2)}\t\\\\x${log.transactionHash.slice(2)}\t${Number(log.transactionIndex)}\t${Number(log.logIndex)}\t${block.number}\t${block.timestamp}\n`;
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
