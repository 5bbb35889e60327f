/**
 * The messages of the market data streams (`/v2/{iex,sip,test}` and `/v1beta3/crypto/us` on the data host), as
 * the anchor's (reference §3.2): pure functions from a state to a control message, a client's frame to what it
 * asks, and messages to the bytes of a frame. No I/O.
 *
 * Frames are always arrays of messages: JSON text, or MessagePack binary frames when the handshake carried
 * `Content-Type: application/msgpack` (then `t` travels as a MessagePack timestamp, extension −1, as the
 * anchor's). Feed messages are encoded once per format (`encodeItem`) and frames are built by concatenating
 * encoded items (`frameOfItems`), so a message sent to a thousand connections is encoded once, not a thousand
 * times.
 */
import { decode, encode } from "@msgpack/msgpack";
import type { FrameEncoding } from "./tradeUpdateMessages.ts";

export type { FrameEncoding } from "./tradeUpdateMessages.ts";

/** Largest client message accepted (the server's frame limit is the same). */
export const MAX_DATA_CLIENT_MESSAGE_BYTES = 64 * 1024;

/** The feeds a connection can open: three stock feeds on `/v2/:feed`, one crypto feed on `/v1beta3/crypto/:loc`. */
export const STOCK_FEEDS = ["iex", "sip", "test"] as const;
export const CRYPTO_LOCATIONS = ["us"] as const;
export type DataFeed = (typeof STOCK_FEEDS)[number] | "crypto";

/** Every channel name a subscribe message may carry (the anchor's, all feeds). */
export const KNOWN_CHANNELS = [
  "trades",
  "quotes",
  "bars",
  "updatedBars",
  "dailyBars",
  "statuses",
  "lulds",
  "corrections",
  "cancelErrors",
  "imbalances",
  "orderbooks",
  "news",
] as const;
export type Channel = (typeof KNOWN_CHANNELS)[number];

/** The channels of each kind of feed, in the order the subscription reply lists them. */
export const STOCK_CHANNELS: readonly Channel[] = [
  "trades",
  "quotes",
  "bars",
  "updatedBars",
  "dailyBars",
  "statuses",
  "lulds",
  "corrections",
  "cancelErrors",
];
export const CRYPTO_CHANNELS: readonly Channel[] = [
  "trades",
  "quotes",
  "bars",
  "updatedBars",
  "dailyBars",
  "orderbooks",
];

export const channelsOf = (feed: DataFeed): readonly Channel[] =>
  feed === "crypto" ? CRYPTO_CHANNELS : STOCK_CHANNELS;

/** The anchor's error codes and texts. */
export const DATA_STREAM_ERRORS = {
  400: "invalid syntax",
  401: "not authenticated",
  402: "auth failed",
  403: "already authenticated",
  404: "auth timeout",
  405: "symbol limit exceeded",
  406: "connection limit exceeded",
  407: "slow client",
  409: "insufficient subscription",
  410: "invalid subscribe action for this feed",
  411: "insufficient scope",
  500: "internal error",
} as const;
export type DataStreamErrorCode = keyof typeof DATA_STREAM_ERRORS;

export type ControlMessage =
  | { T: "success"; msg: "connected" | "authenticated" }
  | { T: "error"; code: DataStreamErrorCode; msg: string }
  | ({ T: "subscription" } & Partial<Record<Channel, string[]>>);

export const connectedMessage = (): ControlMessage => ({ T: "success", msg: "connected" });
export const authenticatedMessage = (): ControlMessage => ({ T: "success", msg: "authenticated" });
export const dataStreamError = (code: DataStreamErrorCode): ControlMessage => ({
  T: "error",
  code,
  msg: DATA_STREAM_ERRORS[code],
});

/** A connection's subscriptions: per channel of its feed, the symbols (or `*`). */
export type Subscriptions = Map<Channel, Set<string>>;

export const emptySubscriptions = (feed: DataFeed): Subscriptions =>
  new Map(channelsOf(feed).map((channel) => [channel, new Set<string>()]));

/** The reply to (un)subscribe: every channel of the feed, with what the connection now has, `*` first. */
export function subscriptionMessage(feed: DataFeed, subscriptions: Subscriptions): ControlMessage {
  const message: { T: "subscription" } & Partial<Record<Channel, string[]>> = { T: "subscription" };
  for (const channel of channelsOf(feed)) {
    const symbols = [...(subscriptions.get(channel) ?? [])];
    message[channel] = symbols.includes("*") ? ["*", ...symbols.filter((s) => s !== "*")] : symbols;
  }
  return message;
}

/** Credentials of an `auth` message or of the handshake's headers. */
export type DataCredentials = { kind: "oauth"; token: string } | { kind: "key"; keyId: string; secret: string };

/** What a client's frame asks for. */
export type DataClientMessage =
  | { kind: "auth"; credentials: DataCredentials | undefined }
  | { kind: "subscribe" | "unsubscribe"; channels: Partial<Record<Channel, string[]>> }
  | { kind: "invalid"; code: 400 | 410 };

const MAX_CREDENTIAL_LENGTH = 512;
/** Symbols per channel in one message (the largest universe is far below). */
const MAX_SYMBOLS_PER_CHANNEL = 10_000;
/** An equity ticker (AAPL, BRK.B) or a crypto pair (BTC/USD); `*` is every symbol. */
const STOCK_SYMBOL = /^[A-Z][A-Z0-9.]{0,15}$/;
const CRYPTO_SYMBOL = /^[A-Z0-9]{1,15}\/[A-Z0-9]{1,15}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const credential = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" && value.length <= MAX_CREDENTIAL_LENGTH ? value : undefined;

/** Whether `symbol` is well formed for `feed` (equity tickers on stock feeds, pairs on the crypto feed). */
export const symbolFitsFeed = (feed: DataFeed, symbol: string): boolean =>
  symbol === "*" || (feed === "crypto" ? CRYPTO_SYMBOL : STOCK_SYMBOL).test(symbol);

function decodeBody(data: Buffer, isBinary: boolean, encoding: FrameEncoding): unknown {
  if (isBinary && encoding === "msgpack") return decode(data, { maxStrLength: MAX_DATA_CLIENT_MESSAGE_BYTES });
  return JSON.parse(data.toString("utf8"));
}

function parseChannels(feed: DataFeed, message: Record<string, unknown>): DataClientMessage {
  const channels: Partial<Record<Channel, string[]>> = {};
  let offFeed = false;
  for (const channel of KNOWN_CHANNELS) {
    const symbols = message[channel];
    if (symbols === undefined) continue;
    if (!Array.isArray(symbols) || symbols.length > MAX_SYMBOLS_PER_CHANNEL) return { kind: "invalid", code: 400 };
    for (const symbol of symbols) {
      if (typeof symbol !== "string" || !symbolFitsFeed(feed, symbol)) return { kind: "invalid", code: 400 };
    }
    if (!channelsOf(feed).includes(channel)) offFeed = true;
    channels[channel] = [...new Set(symbols as string[])];
  }
  // A channel this feed does not carry rejects the whole message, as the anchor's.
  if (offFeed) return { kind: "invalid", code: 410 };
  return { kind: message.action as "subscribe" | "unsubscribe", channels };
}

/**
 * A client's frame as a request: `auth` (credentials undefined when unusable), `subscribe`/`unsubscribe`
 * (channels of other feeds → 410; malformed symbols, as `BTCUSD` on the crypto feed → 400), or invalid (400).
 * Text frames and, in JSON mode, binary frames are JSON; binary frames in MessagePack mode are MessagePack.
 */
export function parseDataClientMessage(
  data: Buffer,
  isBinary: boolean,
  encoding: FrameEncoding,
  feed: DataFeed,
): DataClientMessage {
  if (data.byteLength > MAX_DATA_CLIENT_MESSAGE_BYTES) return { kind: "invalid", code: 400 };
  let message: unknown;
  try {
    message = decodeBody(data, isBinary, encoding);
  } catch {
    return { kind: "invalid", code: 400 };
  }
  if (!isRecord(message)) return { kind: "invalid", code: 400 };
  switch (message.action) {
    case "auth": {
      const key = credential(message.key);
      const secret = credential(message.secret);
      if (!key || !secret) return { kind: "auth", credentials: undefined };
      return {
        kind: "auth",
        credentials: key === "oauth" ? { kind: "oauth", token: secret } : { kind: "key", keyId: key, secret },
      };
    }
    case "subscribe":
    case "unsubscribe":
      return parseChannels(feed, message);
    default:
      return { kind: "invalid", code: 400 };
  }
}

/** RFC 6750 §2.1 b64token, bounded. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;

/**
 * The credentials of a handshake's headers: `Authorization: Bearer <token>`, or `APCA-API-KEY-ID` +
 * `APCA-API-SECRET-KEY`. `undefined` when there are none; `"invalid"` when there are some but unusable
 * (a malformed bearer, half a key pair, or both kinds at once).
 */
export function handshakeCredentials(
  headers: Record<string, string | string[] | undefined>,
): DataCredentials | "invalid" | undefined {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const authorization = header("authorization");
  const keyId = header("apca-api-key-id");
  const secret = header("apca-api-secret-key");
  if (authorization === undefined && keyId === undefined && secret === undefined) return undefined;
  if (authorization !== undefined) {
    const token = keyId === undefined && secret === undefined ? BEARER.exec(authorization)?.[1] : undefined;
    return token ? { kind: "oauth", token } : "invalid";
  }
  const id = credential(keyId);
  const key = credential(secret);
  return id && key ? { kind: "key", keyId: id, secret: key } : "invalid";
}

/** A feed message as stored in `brokerage.market_feed.message` (JSON; `t` an RFC 3339 string). */
export type FeedMessage = Record<string, unknown> & { T: string; S: string; t?: string };

/** The MessagePack form of a message: `t` as a Date, which `@msgpack/msgpack` encodes as a timestamp. */
function msgpackForm(message: Record<string, unknown>): Record<string, unknown> {
  if (typeof message.t !== "string") return message;
  const at = new Date(message.t);
  return Number.isNaN(at.getTime()) ? message : { ...message, t: at };
}

/** One message encoded on its own, ready to be concatenated into frames of `encoding`. */
export function encodeItem(message: Record<string, unknown>, encoding: FrameEncoding): Buffer {
  if (encoding === "json") return Buffer.from(JSON.stringify(message));
  const bytes = encode(msgpackForm(message));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The MessagePack array header for `length` items (fixarray, array 16, array 32). */
function msgpackArrayHeader(length: number): Buffer {
  if (length < 16) return Buffer.from([0x90 | length]);
  if (length < 0x10000) return Buffer.from([0xdc, length >> 8, length & 0xff]);
  const header = Buffer.alloc(5);
  header[0] = 0xdd;
  header.writeUInt32BE(length, 1);
  return header;
}

const COMMA = Buffer.from(",");
const OPEN = Buffer.from("[");
const CLOSE = Buffer.from("]");

/** A frame (an array) of items already encoded with `encodeItem` in `encoding`. */
export function frameOfItems(items: readonly Buffer[], encoding: FrameEncoding): Buffer {
  if (encoding === "msgpack") return Buffer.concat([msgpackArrayHeader(items.length), ...items]);
  const parts: Buffer[] = [OPEN];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** A frame of one control message (control messages always travel alone, as the anchor's). */
export const controlFrame = (message: ControlMessage, encoding: FrameEncoding): Buffer =>
  frameOfItems([encodeItem(message, encoding)], encoding);
