/**
 * An `eth_getLogs` reply read in place: one pass over the reply's bytes records where each log's
 * fields sit, and consumers copy or decode the hex digits straight from those bytes. A backfill reads
 * ~1.3 KB of JSON per SpokePool deposit; `JSON.parse` turned each into a dozen strings that were sliced,
 * hex-decoded and re-encoded again, and that garbage (not the node) was most of the indexer's CPU
 * (bench/README, "Reading the crosschain backfill ratio").
 *
 * Every field the view reports is checked to be `0x` and hex digits only, so its digits can go into
 * a COPY line or a hash as they are. A field with any other value (null, a non-hex string, an escape)
 * reads as absent, and consumers skip such a log as they skip undecodable ones. A reply the scanner
 * does not understand (an `error` member, an unusual layout) yields undefined: the caller then parses
 * it with `JSON.parse` (see `BlockFetcher.getLogs`).
 *
 * @example
 * const view = scanLogsReply(body);
 * for (let i = 0; i < view.count; i++) if (view.topicCount(i) > 0) console.log(view.hex(i, LOG_FIELD.topic0));
 */

/** A log as `eth_getLogs` answers it: quantities as hex strings. */
export interface RpcLog {
  address: `0x${string}`;
  topics: `0x${string}`[];
  data: `0x${string}`;
  blockNumber: `0x${string}`;
  blockHash: `0x${string}`;
  /** Block time of the log (nodes since 2025; older ones leave it out). */
  blockTimestamp?: `0x${string}`;
  transactionHash: `0x${string}`;
  transactionIndex: `0x${string}`;
  logIndex: `0x${string}`;
  removed?: boolean;
}

/** The fields a view records, by index. Topics are `topic0 + k`. */
export const LOG_FIELD = {
  address: 0,
  data: 1,
  blockNumber: 2,
  blockHash: 3,
  blockTimestamp: 4,
  transactionHash: 5,
  transactionIndex: 6,
  logIndex: 7,
  topic0: 8,
} as const;
const FIELDS = 12;
const MAX_TOPICS = 4;
/** Marks a log with more topics than the EVM allows (no event fits it). */
const TOO_MANY_TOPICS = 255;

/** Hex digit values by byte; -1 for anything else. */
export const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 10; c++) HEX_VALUE[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX_VALUE[97 + c] = 10 + c;
  HEX_VALUE[65 + c] = 10 + c;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

const KEY_ID = new Map<string, number>([
  ...Object.entries(LOG_FIELD).filter(([k]) => k !== "topic0"),
  ["topics", 100],
  ["removed", 101],
]);
/** Known keys as bytes, bucketed by length, for matching without building strings. */
const KEYS_BY_LENGTH: { bytes: Buffer; id: number }[][] = [];
for (const [key, id] of KEY_ID) {
  const bucket = KEYS_BY_LENGTH[key.length] ?? [];
  bucket.push({ bytes: Buffer.from(key, "latin1"), id });
  KEYS_BY_LENGTH[key.length] = bucket;
}

/** The logs of one reply: field positions into `body`. */
export class LogsView {
  /** Per log and field: start and end (exclusive) of the hex digits after `0x`; -1 when absent or invalid. */
  private offsets: Int32Array;
  private topics: Uint8Array;
  private removedFlags: Uint8Array;
  count = 0;

  constructor(readonly body: Buffer) {
    const guess = Math.max(16, body.length >>> 10);
    this.offsets = new Int32Array(guess * FIELDS * 2);
    this.topics = new Uint8Array(guess);
    this.removedFlags = new Uint8Array(guess);
  }

  /** Start of field `field` of log `i` (first digit after `0x`), or -1 when the log has no valid value there. */
  start(i: number, field: number): number {
    return this.offsets[(i * FIELDS + field) * 2] as number;
  }

  /** End (exclusive) of field `field` of log `i`. */
  end(i: number, field: number): number {
    return this.offsets[(i * FIELDS + field) * 2 + 1] as number;
  }

  /** Topics of log `i`; 255 when it has more than an EVM log can (no event fits it). */
  topicCount(i: number): number {
    return this.topics[i] as number;
  }

  removed(i: number): boolean {
    return this.removedFlags[i] === 1;
  }

  /** The field as a `0x` string, or undefined when absent. */
  hex(i: number, field: number): `0x${string}` | undefined {
    const s = this.start(i, field);
    return s < 0 ? undefined : `0x${this.body.toString("latin1", s, this.end(i, field))}`;
  }

  /** True when field `field` of logs `i` and `j` holds the same digits (both present). */
  same(i: number, j: number, field: number): boolean {
    const a = this.start(i, field);
    const b = this.start(j, field);
    if (a < 0 || b < 0) return false;
    const length = this.end(i, field) - a;
    if (this.end(j, field) - b !== length) return false;
    const body = this.body;
    for (let k = 0; k < length; k++) if (body[a + k] !== body[b + k]) return false;
    return true;
  }

  /** Log `i` as `JSON.parse` would give it (absent or invalid fields as empty `0x`). */
  log(i: number): RpcLog {
    const h = (f: number) => this.hex(i, f) ?? "0x";
    const topics: `0x${string}`[] = [];
    const n = this.topicCount(i);
    for (let k = 0; k < n && k < MAX_TOPICS; k++) topics.push(h(LOG_FIELD.topic0 + k));
    const timestamp = this.hex(i, LOG_FIELD.blockTimestamp);
    return {
      address: h(LOG_FIELD.address),
      topics,
      data: h(LOG_FIELD.data),
      blockNumber: h(LOG_FIELD.blockNumber),
      blockHash: h(LOG_FIELD.blockHash),
      ...(timestamp === undefined ? {} : { blockTimestamp: timestamp }),
      transactionHash: h(LOG_FIELD.transactionHash),
      transactionIndex: h(LOG_FIELD.transactionIndex),
      logIndex: h(LOG_FIELD.logIndex),
      removed: this.removed(i),
    };
  }

  // The scanner's writers (below): a view is filled once, by scanLogsReply, and read after.

  /** Starts log number `count`, growing the tables when full; returns its index. */
  add(): number {
    const i = this.count++;
    if (i >= this.topics.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, size: number): T => {
        const b = new (a.constructor as new (n: number) => T)(size);
        b.set(a);
        return b;
      };
      this.offsets = grow(this.offsets, this.offsets.length * 2);
      this.topics = grow(this.topics, this.topics.length * 2);
      this.removedFlags = grow(this.removedFlags, this.removedFlags.length * 2);
    }
    this.offsets.fill(-1, i * FIELDS * 2, (i + 1) * FIELDS * 2);
    this.topics[i] = 0;
    this.removedFlags[i] = 0;
    return i;
  }

  set(i: number, field: number, start: number, end: number) {
    const at = (i * FIELDS + field) * 2;
    this.offsets[at] = start;
    this.offsets[at + 1] = end;
  }

  setTopicCount(i: number, n: number) {
    this.topics[i] = n;
  }

  setRemoved(i: number) {
    this.removedFlags[i] = 1;
  }
}

class NotUnderstood extends Error {}

/**
 * Scans a JSON-RPC reply whose `result` is an array of logs; undefined when the reply is anything else
 * (an error, another shape) or uses JSON the scanner does not read (an escaped key, say).
 */
export function scanLogsReply(body: Buffer): LogsView | undefined {
  try {
    return new Scanner(body).reply();
  } catch (error) {
    if (error instanceof NotUnderstood) return undefined;
    throw error;
  }
}

class Scanner {
  private p = 0;
  private readonly view: LogsView;

  constructor(private readonly b: Buffer) {
    this.view = new LogsView(b);
  }

  reply(): LogsView {
    let sawResult = false;
    this.expect(LBRACE);
    this.members(() => {
      const key = this.key();
      if (key === "error") throw new NotUnderstood();
      if (key === "result") {
        this.logs();
        sawResult = true;
      } else this.skipValue();
    });
    this.ws();
    if (this.p !== this.b.length || !sawResult) throw new NotUnderstood();
    return this.view;
  }

  private logs() {
    this.expect(LBRACKET);
    this.sequence(RBRACKET, () => this.log());
  }

  private log() {
    const i = this.view.add();
    this.expect(LBRACE);
    this.members(() => {
      const id = this.knownKey();
      this.ws();
      if (id === 100) this.topicList(i);
      else if (id === 101) this.removedFlag(i);
      else if (id >= 0) this.hexValue(i, id);
      else this.skipValue();
    });
  }

  private topicList(i: number) {
    const b = this.b;
    if (b[this.p] !== LBRACKET) {
      this.skipValue();
      return;
    }
    this.p++;
    let n = 0;
    this.sequence(RBRACKET, () => {
      if (n < MAX_TOPICS) this.hexValue(i, LOG_FIELD.topic0 + n);
      else this.skipValue();
      n++;
    });
    // A topic that is not hex leaves a hole: consumers see it absent and skip the log.
    this.view.setTopicCount(i, n > MAX_TOPICS ? TOO_MANY_TOPICS : n);
  }

  private removedFlag(i: number) {
    if (this.b[this.p] === 0x74 /* t */) this.view.setRemoved(i);
    this.skipValue();
  }

  /** A `"0x…"` hex string: its digits recorded; any other value skipped and the field left absent. */
  private hexValue(i: number, field: number) {
    const b = this.b;
    const s = this.p;
    if (b[s] === QUOTE && b[s + 1] === 0x30 && b[s + 2] === 0x78) {
      let q = s + 3;
      while (q < b.length && HEX_VALUE[b[q] as number] !== -1) q++;
      if (b[q] === QUOTE) {
        this.view.set(i, field, s + 3, q);
        this.p = q + 1;
        return;
      }
    }
    this.skipValue();
  }

  /** Calls `member` for each `key: value` of an object whose `{` was read, through its `}`. */
  private members(member: () => void) {
    this.sequence(RBRACE, member);
  }

  /** Calls `item` for each comma-separated item up to `close` (an array's `]` or an object's `}`), then reads it. */
  private sequence(close: number, item: () => void) {
    this.ws();
    if (this.b[this.p] === close) {
      this.p++;
      return;
    }
    for (;;) {
      this.ws();
      item();
      this.ws();
      const c = this.b[this.p++];
      if (c === close) return;
      if (c !== COMMA) throw new NotUnderstood();
    }
  }

  /** A key and its colon, as a string. */
  private key(): string {
    const end = this.keyEnd();
    const key = this.keyText(this.p, end);
    this.p = end + 1;
    this.colon();
    return key;
  }

  /** A log member's key and its colon: the field id of a known key, or -1. */
  private knownKey(): number {
    const b = this.b;
    const end = this.keyEnd();
    const start = this.p + 1;
    const escaped = this.escaped;
    this.p = end + 1;
    this.colon();
    if (escaped) return KEY_ID.get(this.keyText(start - 1, end)) ?? -1;
    for (const k of KEYS_BY_LENGTH[end - start] ?? []) {
      let same = true;
      for (let j = 0; j < k.bytes.length; j++)
        if (b[start + j] !== k.bytes[j]) {
          same = false;
          break;
        }
      if (same) return k.id;
    }
    return -1;
  }

  /** Whether the key keyEnd last found holds escapes. */
  private escaped = false;

  /** The closing quote of the string key at `p`. */
  private keyEnd(): number {
    const b = this.b;
    if (b[this.p] !== QUOTE) throw new NotUnderstood();
    this.escaped = false;
    for (let q = this.p + 1; q < b.length; q++) {
      const c = b[q];
      if (c === QUOTE) return q;
      if (c === BACKSLASH) {
        this.escaped = true;
        q++;
      }
    }
    throw new NotUnderstood();
  }

  /** The text of the string from the quote at `quote` to the one at `end` (escapes decoded). */
  private keyText(quote: number, end: number): string {
    const raw = this.b.toString("utf8", quote, end + 1);
    if (!this.escaped) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      throw new NotUnderstood();
    }
  }

  private colon() {
    this.ws();
    if (this.b[this.p++] !== COLON) throw new NotUnderstood();
  }

  /** Any JSON value, without looking inside (strings may hold escapes). */
  private skipValue() {
    const b = this.b;
    let depth = 0;
    for (;;) {
      this.ws();
      const c = b[this.p];
      if (c === undefined) throw new NotUnderstood();
      if (c === QUOTE) {
        let q = this.p + 1;
        for (;;) {
          const d = b[q];
          if (d === undefined) throw new NotUnderstood();
          if (d === BACKSLASH) q += 2;
          else if (d === QUOTE) break;
          else q++;
        }
        this.p = q + 1;
      } else if (c === LBRACE || c === LBRACKET) {
        depth++;
        this.p++;
        continue;
      } else if (c === RBRACE || c === RBRACKET) {
        if (depth === 0) throw new NotUnderstood();
        depth--;
        this.p++;
      } else if (c === COMMA || c === COLON) {
        if (depth === 0) throw new NotUnderstood();
        this.p++;
        continue;
      } else {
        // A number, true, false or null: up to the next delimiter.
        let q = this.p;
        while (q < b.length) {
          const d = b[q] as number;
          if (d === COMMA || d === RBRACE || d === RBRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09)
            break;
          q++;
        }
        if (q === this.p) throw new NotUnderstood();
        this.p = q;
      }
      if (depth === 0) return;
    }
  }

  private expect(c: number) {
    this.ws();
    if (this.b[this.p++] !== c) throw new NotUnderstood();
  }

  private ws() {
    const b = this.b;
    let c = b[this.p];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.p];
  }
}
