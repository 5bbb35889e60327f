/**
 * Event log decoding driven by an ABI event item, for indexers that decode hundreds of thousands of logs.
 * viem's `decodeEventLog` recomputes the event selector (a Keccak of its signature) and converts the
 * data to bytes for every log; this decoder plans each event once and then slices the hex words. It
 * handles the types events carry in practice (uint/int, address, bool, bytesN, bytes, string and
 * static tuples of those) and hands anything else (arrays, dynamic tuples) to viem, so results are
 * always viem's: numbers for integers of ≤ 48 bits, bigints above, checksummed addresses.
 *
 * @example
 * const decoder = createEventDecoder(spokePoolAbi.find((e) => e.name === "FundsDeposited"));
 * const args = decoder.decode(log.topics, log.data);
 */
import { type AbiEvent, decodeEventLog, getAddress, type Hex, toEventSelector } from "viem";

interface Param {
  name?: string;
  type: string;
  indexed?: boolean;
  components?: readonly Param[];
}

/** Reads one value from `hex` (no 0x) at word `index`; `base` is the word where its enclosing tuple starts. */
type WordReader = (hex: string, index: number, base: number) => unknown;

export interface EventDecoder {
  name: string;
  selector: Hex;
  /** The event's arguments by name; throws when the log does not fit the event. */
  decode(topics: readonly Hex[], data: Hex): Record<string, unknown>;
  /**
   * A reader of the raw ABI words (64 hex digits, no 0x) of the named single-word parameters, in the
   * order named, as they sit in a log (topic or data head). For callers that re-encode those values,
   * e.g. to hash them, and would otherwise turn them into numbers and back. Planned once per call site.
   *
   * @example
   * const read = decoder.wordsOf(["depositId", "inputAmount"]);
   * const [depositId, inputAmount] = read(log.topics, log.data);
   */
  wordsOf(names: readonly string[]): (topics: readonly Hex[], data: Hex) => string[];
  /**
   * A reader of the named non-indexed `bytes` parameter's content as hex (no 0x), straight from the
   * log's data; throws when the data is shorter than its offset and length say. Planned once per call site.
   *
   * @example
   * const message = decoder.bytesOf("message")(log.data); // "" for an empty message
   */
  bytesOf(name: string): (data: Hex) => string;
  /**
   * Where the named single-word parameters sit, for readers of raw log bytes: `topic` (1-based) for an
   * indexed one, else `head`, its word in the data head.
   */
  placesOf(names: readonly string[]): { topic?: number; head: number }[];
  /** The data head word holding the named non-indexed `bytes` parameter's offset. */
  bytesPlace(name: string): number;
}

const wordAt = (hex: string, i: number): string => {
  const w = hex.slice(i * 64, i * 64 + 64);
  if (w.length !== 64) throw new RangeError("log data is shorter than the event's layout");
  return w;
};

const ZEROS = "0".repeat(64);

/** The content of a `bytes` value whose offset word is word `i` of `hex` (offsets count from word `base`). */
function bytesAt(hex: string, i: number, base: number): string {
  // A byte offset that is not a multiple of 32 (legal ABI, never emitted by solc) still lands on a byte.
  const start = base + Number(BigInt(`0x${wordAt(hex, i)}`)) / 32;
  const length = Number(BigInt(`0x${wordAt(hex, start)}`));
  const body = hex.slice((start + 1) * 64, (start + 1) * 64 + length * 2);
  if (body.length !== length * 2) throw new RangeError("log data is shorter than a dynamic value");
  return body;
}

function integer(bits: number, signed: boolean) {
  // Unsigned integers of ≤ 48 bits (timestamps, deadlines, enums) are most of what events carry:
  // read them as a Number straight from the low hex digits when the high ones are zero.
  const lowDigits = Math.ceil(bits / 4);
  const highZeros = ZEROS.slice(lowDigits);
  const limit = 2 ** bits;
  const fast = !signed && bits <= 48;
  // Every word is a valid uint256: no range check (which costs a second bigint per value).
  const anyWord = !signed && bits === 256;
  return (w: string): bigint | number => {
    if (fast && w.startsWith(highZeros)) {
      const n = Number.parseInt(w.slice(64 - lowDigits), 16);
      if (n < limit) return n;
    }
    const raw = BigInt(`0x${w}`);
    if (anyWord) return raw;
    const value = signed ? BigInt.asIntN(bits, raw) : raw;
    if (value !== (signed ? BigInt.asIntN(bits, value) : BigInt.asUintN(bits, value))) {
      throw new RangeError("integer out of range");
    }
    return bits <= 48 ? Number(value) : value;
  };
}

/** A reader of one static word, or undefined when the type is not a single static word. */
function staticWord(type: string): ((w: string) => unknown) | undefined {
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) return integer(Number(int[2] || 256), int[1] !== "u");
  if (type === "address") return (w) => getAddress(`0x${w.slice(24)}`);
  if (type === "bool") return (w) => BigInt(`0x${w}`) !== 0n;
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) return fixed[1] === "32" ? (w) => `0x${w}` : (w) => `0x${w.slice(0, Number(fixed[1]) * 2)}`;
  return undefined;
}

/** Plans a parameter's reader; undefined when unsupported (the event then goes to viem). */
function plan(p: Param): WordReader | undefined {
  const word = staticWord(p.type);
  if (word) return (hex, i) => word(wordAt(hex, i));
  if (p.type === "bytes" || p.type === "string") {
    const read: WordReader = (hex, i, base) => {
      const body = bytesAt(hex, i, base);
      return p.type === "bytes" ? `0x${body}` : Buffer.from(body, "hex").toString("utf8");
    };
    return read;
  }
  if (p.type === "tuple" && p.components) {
    // Only tuples of single static words are laid out inline; other tuples go to viem.
    const words = p.components.map((c) => staticWord(c.type));
    if (words.some((w) => !w)) return undefined;
    const names = p.components.map((c) => c.name ?? "");
    const read: WordReader = (hex, i) =>
      Object.fromEntries(words.map((w, k) => [names[k], (w as (w: string) => unknown)(wordAt(hex, i + k))]));
    return read;
  }
  return undefined;
}

/** Plans `event` once; see the module comment for what is decoded here and what goes to viem. */
export function createEventDecoder(event: AbiEvent): EventDecoder {
  const selector = toEventSelector(event);
  const inputs = event.inputs as readonly Param[];
  const topicReaders: [string, (w: string) => unknown][] = [];
  const dataReaders: [string, WordReader, number][] = [];
  let offset = 0;
  let fast = true;
  for (const input of inputs) {
    if (input.indexed) {
      // Indexed dynamic values are stored as their hash, which viem returns as is.
      const word = staticWord(input.type) ?? ((w: string) => `0x${w}`);
      topicReaders.push([input.name ?? "", word]);
      continue;
    }
    const read = plan(input);
    if (!read) {
      fast = false;
      break;
    }
    dataReaders.push([input.name ?? "", read, offset]);
    offset += headWords(input) ?? 1;
  }
  const placesOf = (names: readonly string[]) => names.map((name) => wordPlace(inputs, name, event.name));
  const bytesPlace = (name: string) => dynamicBytesPlace(inputs, name, event.name);
  const wordsOf = (names: readonly string[]) => {
    const places = placesOf(names);
    return (topics: readonly Hex[], data: Hex) =>
      places.map(({ topic, head }) => {
        const w = topic !== undefined ? (topics[topic] ?? "").slice(2) : data.slice(2 + head * 64, 66 + head * 64);
        if (w.length !== 64) throw new RangeError("log is shorter than the event's layout");
        return w;
      });
  };
  const bytesOf = (name: string) => {
    const head = bytesPlace(name);
    return (data: Hex) => bytesAt(data.slice(2), head, 0);
  };
  const layout = { name: event.name, selector, wordsOf, bytesOf, placesOf, bytesPlace };
  if (!fast) {
    return {
      ...layout,
      decode: (topics, data) =>
        decodeEventLog({ abi: [event], topics: topics as [Hex, ...Hex[]], data }).args as Record<string, unknown>,
    };
  }
  return {
    ...layout,
    decode(topics, data) {
      if (topics[0] !== selector) throw new RangeError(`log is not a ${event.name} event`);
      if (topics.length !== topicReaders.length + 1) throw new RangeError("log has the wrong number of topics");
      const args: Record<string, unknown> = {};
      for (let k = 0; k < topicReaders.length; k++) {
        const [name, read] = topicReaders[k] as (typeof topicReaders)[number];
        args[name] = read((topics[k + 1] as string).slice(2));
      }
      const hex = data.slice(2);
      for (const [name, read, index] of dataReaders) args[name] = read(hex, index, 0);
      return args;
    },
  };
}

/** Where the single-word parameter `name` sits: its topic, or its word in the data head. */
function wordPlace(inputs: readonly Param[], name: string, eventName: string): { topic?: number; head: number } {
  let topic = 1;
  let head = 0;
  for (const input of inputs) {
    const single = staticWord(input.type) !== undefined;
    if (input.name === name) {
      if (!single) throw new Error(`${eventName}.${name} is not a single-word parameter`);
      return input.indexed ? { topic, head: 0 } : { head };
    }
    if (input.indexed) topic++;
    else head += headWords(input) ?? 1;
  }
  throw new Error(`${eventName} has no parameter ${name}`);
}

/** The head word holding the offset of the non-indexed `bytes` parameter `name`. */
function dynamicBytesPlace(inputs: readonly Param[], name: string, eventName: string): number {
  let head = 0;
  for (const input of inputs) {
    if (input.name === name) {
      if (input.indexed || input.type !== "bytes") throw new Error(`${eventName}.${name} is not a non-indexed bytes`);
      return head;
    }
    if (!input.indexed) head += headWords(input) ?? 1;
  }
  throw new Error(`${eventName} has no parameter ${name}`);
}

/**
 * Words a static parameter takes in the head (tuples and fixed arrays inline); undefined when dynamic,
 * which takes one word there (its offset). Used by the fast readers and by `wordsOf` alike.
 */
function headWords(p: Param): number | undefined {
  if (staticWord(p.type)) return 1;
  const array = /^(.*)\[(\d+)\]$/.exec(p.type);
  if (array) {
    const inner = headWords({ ...p, type: array[1] as string });
    return inner === undefined ? undefined : inner * Number(array[2]);
  }
  if (p.type === "tuple" && p.components) {
    let sum = 0;
    for (const c of p.components) {
      const w = headWords(c);
      if (w === undefined) return undefined;
      sum += w;
    }
    return sum;
  }
  return undefined;
}
