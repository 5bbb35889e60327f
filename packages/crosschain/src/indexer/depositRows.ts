/**
 * FundsDeposited logs written straight into COPY lines of `crosschain.deposits`: the backfill's hot
 * path. A row's values are the log's own ABI words, read from the `eth_getLogs` reply's bytes (a
 * {@link LogsView}): hex fields are copied as they are, integers turned into decimal, and the relay
 * hash's preimage filled from the words, without a string per field or a decoded event in between.
 * That garbage, and `JSON.parse` itself, were most of the backfill's CPU (bench/README, "Reading the
 * crosschain backfill ratio"). The values are the ABI decoder's (depositRows.test.ts checks them
 * against viem's); a log that does not fit the event is skipped.
 *
 * @example
 * const rows = createDepositRows(8453);
 * for (let i = 0; i < view.count; i++) if (isFundsDeposited(view, i)) rows.push(view, i, block);
 * await tx.copyFrom(`COPY crosschain.deposits (${rows.columns.join(", ")}) FROM STDIN`, rows.bytes());
 */
import { HEX_VALUE, keccak256Bytes, LOG_FIELD, type LogsView } from "@platform/chains";
import { createCopyLines } from "@platform/kernel";
import type { Hex } from "viem";
import { RELAY_HASH_SLOT, RELAY_WORD_NAMES, relayHashPreimage } from "../domain/relayHash.ts";
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
const FUNDS_DEPOSITED_TOPIC: Hex = fundsDeposited.selector;
const SELECTOR_DIGITS = Buffer.from(FUNDS_DEPOSITED_TOPIC.slice(2), "latin1");

/** The words a row reads: the relay's (V3RelayData order), then the ones only the row needs. */
const WORD_NAMES = [...RELAY_WORD_NAMES, "destinationChainId", "quoteTimestamp"] as const;
type WordName = (typeof WORD_NAMES)[number];
/** Where each of WORD_NAMES sits: a topic (1-based), else 0 and its data head word. */
const PLACES = fundsDeposited.placesOf(WORD_NAMES);
const word = (name: WordName) => WORD_NAMES.indexOf(name);
const MESSAGE_HEAD = fundsDeposited.bytesPlace("message");
/** Words the data head takes (the highest head word read, plus one). */
const HEAD_WORDS = Math.max(MESSAGE_HEAD, ...PLACES.map((p) => (p.topic ? 0 : p.head))) + 1;
/** FundsDeposited's indexed parameters are all among WORD_NAMES: the selector plus those. */
const TOPICS = 1 + PLACES.filter((p) => p.topic).length;

/** The words copied into the relay hash's preimage: [word index, byte offset in the preimage]. */
const PREIMAGE_WORDS = (["destinationChainId", ...RELAY_WORD_NAMES] as const).map(
  (name) => [word(name), RELAY_HASH_SLOT[name] * 32] as const,
);
const [DEPOSIT_ID, DESTINATION, QUOTE_TIMESTAMP, FILL_DEADLINE, EXCLUSIVITY_DEADLINE, INPUT_AMOUNT, OUTPUT_AMOUNT] = [
  word("depositId"),
  word("destinationChainId"),
  word("quoteTimestamp"),
  word("fillDeadline"),
  word("exclusivityDeadline"),
  word("inputAmount"),
  word("outputAmount"),
];
/** The bytes32 words written as bytea columns, in column order. */
const BYTES32_COLUMNS = (["depositor", "recipient", "exclusiveRelayer", "inputToken", "outputToken"] as const).map(
  word,
);
/** Where each word of the log being written starts in the reply (reused: rows are written one at a time). */
const at = new Int32Array(WORD_NAMES.length);

const TAB = 0x09;
const DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** A bytea field starts `\\x`: bytea's hex prefix with COPY's backslash escaped. */
const BACKSLASH = 0x5c;
const X = 0x78;
const INT64_MAX = 2n ** 63n - 1n;
/** Bytes a row takes besides its message: 21 fields of at most 78 digits or 64 hex digits plus prefixes. */
const ROW_BYTES = 21 * 90;

export interface DepositRows {
  /** The table's columns the rows fill, in order. */
  readonly columns: typeof DEPOSIT_COLUMNS;
  /** Rows pushed so far. */
  readonly count: number;
  /**
   * Appends the row of log `i` of `view`, a FundsDeposited found in `block`; false (nothing written)
   * when the log does not fit the event. Throws when the log lacks its transaction hash or indexes (a
   * broken reply, to be read again).
   */
  push(view: LogsView, i: number, block: { number: bigint; timestamp: number }): boolean;
  /** The COPY lines so far (a view, valid until the next push). */
  bytes(): Uint8Array;
}

/** True when log `i` of `view` is a FundsDeposited (its first topic is the event's selector). */
export function isFundsDeposited(view: LogsView, i: number): boolean {
  const s = view.start(i, LOG_FIELD.topic0);
  if (s < 0 || view.end(i, LOG_FIELD.topic0) - s !== 64) return false;
  const body = view.body;
  for (let k = 0; k < 64; k++) if (body[s + k] !== SELECTOR_DIGITS[k]) return false;
  return true;
}

/**
 * Rows of deposits made on `originChainId`; `expectedRows` sizes the buffer once (growing it by doubling
 * allocates twice the final size, and large buffers are what triggers V8's full collections here).
 */
export function createDepositRows(originChainId: number, expectedRows = 0): DepositRows {
  const lines = createCopyLines(Math.max(64 * 1024, expectedRows * 640));
  const origin = String(originChainId);
  const preimage = relayHashPreimage(originChainId);
  let messageBytes = Buffer.alloc(1024);
  let lastBlock: { number: bigint; timestamp: number } | undefined;
  let blockText = "";
  let count = 0;

  return {
    columns: DEPOSIT_COLUMNS,
    get count() {
      return count;
    },
    bytes: () => lines.bytes(),
    push(view, i, block) {
      const body = view.body;
      const txHash = view.start(i, LOG_FIELD.transactionHash);
      const txIndex = quantity(view, i, LOG_FIELD.transactionIndex);
      const logIndex = quantity(view, i, LOG_FIELD.logIndex);
      if (txHash < 0 || view.end(i, LOG_FIELD.transactionHash) - txHash !== 64 || txIndex < 0 || logIndex < 0) {
        throw new Error("eth_getLogs answered a log without its transaction hash or indexes");
      }
      if (!isFundsDeposited(view, i) || view.topicCount(i) !== TOPICS) return false;
      for (let k = 1; k < TOPICS; k++)
        if (view.end(i, LOG_FIELD.topic0 + k) - view.start(i, LOG_FIELD.topic0 + k) !== 64) return false;
      const data = view.start(i, LOG_FIELD.data);
      const dataDigits = data < 0 ? -1 : view.end(i, LOG_FIELD.data) - data;
      if (dataDigits < HEAD_WORDS * 64 || dataDigits % 2 !== 0) return false;
      for (let k = 0; k < PLACES.length; k++) {
        const p = PLACES[k] as { topic?: number; head: number };
        at[k] = p.topic ? view.start(i, LOG_FIELD.topic0 + p.topic) : data + p.head * 64;
      }

      // Checks first, so that nothing is written for a log that does not fit.
      const quoteTimestamp = uint32(body, at[QUOTE_TIMESTAMP] as number);
      const fillDeadline = uint32(body, at[FILL_DEADLINE] as number);
      const exclusivityDeadline = uint32(body, at[EXCLUSIVITY_DEADLINE] as number);
      if (quoteTimestamp < 0 || fillDeadline < 0 || exclusivityDeadline < 0) return false;
      const destination = chainIdText(body, at[DESTINATION] as number);
      if (destination === undefined) return false;
      // The message: an offset (in bytes, from the data's start) to its length word, then its bytes.
      const offset = smallWord(body, data + MESSAGE_HEAD * 64);
      const lengthAt = data + offset * 2;
      if (offset < 0 || lengthAt + 64 > data + dataDigits) return false;
      const length = smallWord(body, lengthAt);
      const message = lengthAt + 64;
      if (length < 0 || message + length * 2 > data + dataDigits) return false;

      // The relay hash: the preimage's words from the log, the message hash (zero when empty).
      for (let w = 0; w < PREIMAGE_WORDS.length; w++) {
        const [k, slot] = PREIMAGE_WORDS[w] as (typeof PREIMAGE_WORDS)[number];
        hexToBytes(body, at[k] as number, preimage, slot, 32);
      }
      const hashSlot = RELAY_HASH_SLOT.messageHash * 32;
      if (length === 0) preimage.fill(0, hashSlot, hashSlot + 32);
      else {
        if (messageBytes.length < length) messageBytes = Buffer.alloc(length * 2);
        hexToBytes(body, message, messageBytes, 0, length);
        preimage.set(keccak256Bytes(messageBytes.subarray(0, length)), hashSlot);
      }
      const relayHash = keccak256Bytes(preimage);

      if (block !== lastBlock) {
        lastBlock = block;
        blockText = `${block.number}\t${block.timestamp}\n`;
      }
      const out = lines.reserve(ROW_BYTES + length * 2 + blockText.length);
      let o = lines.length;
      o += out.write(origin, o, "latin1");
      out[o++] = TAB;
      o = writeUint256(out, o, body, at[DEPOSIT_ID] as number);
      out[o++] = TAB;
      o += out.write(destination, o, "latin1");
      out[o++] = TAB;
      o = writeByteaFromBytes(out, o, relayHash, 0, 32);
      for (let c = 0; c < BYTES32_COLUMNS.length; c++)
        o = writeBytea(out, o, body, at[BYTES32_COLUMNS[c] as number] as number, 64);
      o = writeUint256(out, o, body, at[INPUT_AMOUNT] as number);
      out[o++] = TAB;
      o = writeUint256(out, o, body, at[OUTPUT_AMOUNT] as number);
      out[o++] = TAB;
      o = writeNumber(out, o, quoteTimestamp);
      o = writeNumber(out, o, fillDeadline);
      o = writeNumber(out, o, exclusivityDeadline);
      o = writeBytea(out, o, body, message, length * 2);
      o = writeByteaFromBytes(out, o, preimage, hashSlot, 32);
      o = writeBytea(out, o, body, txHash, 64);
      o = writeNumber(out, o, txIndex);
      o = writeNumber(out, o, logIndex);
      o += out.write(blockText, o, "latin1");
      lines.advance(o - lines.length);
      count++;
      return true;
    },
  };
}

/** A hex quantity field (an index) as a number; -1 when absent or too large for one. */
function quantity(view: LogsView, i: number, field: number): number {
  const s = view.start(i, field);
  const e = view.end(i, field);
  if (s < 0 || e === s || e - s > 13) return -1;
  let n = 0;
  for (let k = s; k < e; k++) n = n * 16 + (HEX_VALUE[view.body[k] as number] as number);
  return n;
}

/** The word at `at` as a number when its value is below 2^52, else -1. */
function smallWord(body: Buffer, at: number): number {
  for (let k = at; k < at + 51; k++) if (body[k] !== 0x30) return -1;
  let n = 0;
  for (let k = at + 51; k < at + 64; k++) n = n * 16 + (HEX_VALUE[body[k] as number] as number);
  return n;
}

/** A uint32 word's value; -1 when the word holds more (the ABI decoder refuses it). */
function uint32(body: Buffer, at: number): number {
  for (let k = at; k < at + 56; k++) if (body[k] !== 0x30) return -1;
  let n = 0;
  for (let k = at + 56; k < at + 64; k++) n = n * 16 + (HEX_VALUE[body[k] as number] as number);
  return n;
}

/**
 * Decimal text of a chain id word. Chain ids are stored as `bigint`: a larger one (no chain has one, and
 * no route can lead there) skips the deposit instead of failing its whole range forever.
 */
function chainIdText(body: Buffer, at: number): string | undefined {
  const small = smallWord(body, at);
  if (small >= 0) return String(small);
  const value = BigInt(`0x${body.toString("latin1", at, at + 64)}`);
  return value > INT64_MAX ? undefined : value.toString();
}

/** Writes the decimal text of the uint256 word at `at`; returns the new end. */
function writeUint256(out: Buffer, o: number, body: Buffer, at: number): number {
  const small = smallWord(body, at);
  if (small >= 0) return writeDigits(out, o, small);
  return o + out.write(BigInt(`0x${body.toString("latin1", at, at + 64)}`).toString(), o, "latin1");
}

/** Writes `n`'s decimal digits then a tab. */
function writeNumber(out: Buffer, o: number, n: number): number {
  o = writeDigits(out, o, n);
  out[o] = TAB;
  return o + 1;
}

function writeDigits(out: Buffer, o: number, n: number): number {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let k = o + digits - 1, x = n; k >= o; k--, x = Math.floor(x / 10)) out[k] = 48 + (x % 10);
  return o + digits;
}

/**
 * Writes a bytea field from `digits` hex digits of `body` at `at`, then a tab. Copied byte by byte:
 * `Buffer.copy` costs more per call than these 64 bytes take.
 */
function writeBytea(out: Buffer, o: number, body: Buffer, at: number, digits: number): number {
  out[o] = BACKSLASH;
  out[o + 1] = BACKSLASH;
  out[o + 2] = X;
  o += 3;
  for (let k = at; k < at + digits; k++) out[o++] = body[k] as number;
  out[o] = TAB;
  return o + 1;
}

/** Writes a bytea field from `n` bytes of `bytes` at `from`, then a tab. */
function writeByteaFromBytes(out: Buffer, o: number, bytes: Uint8Array, from: number, n: number): number {
  out[o] = BACKSLASH;
  out[o + 1] = BACKSLASH;
  out[o + 2] = X;
  o += 3;
  for (let k = from; k < from + n; k++) {
    const b = bytes[k] as number;
    out[o++] = DIGITS[b >>> 4] as number;
    out[o++] = DIGITS[b & 15] as number;
  }
  out[o] = TAB;
  return o + 1;
}

/** Decodes `n` bytes of hex digits (already checked by the scanner) from `body` at `at` into `out` at `to`. */
function hexToBytes(body: Buffer, at: number, out: Uint8Array, to: number, n: number) {
  for (let k = 0; k < n; k++) {
    out[to + k] =
      ((HEX_VALUE[body[at + 2 * k] as number] as number) << 4) | (HEX_VALUE[body[at + 2 * k + 1] as number] as number);
  }
}
