/**
 * The messages of the trade-update stream (`/stream` on the live and paper hosts), as the anchor's (reference
 * §3.1), and nothing else: pure functions from an event row or a state to a message, a message to the bytes
 * of a frame, and a client's frame to what it asks. No I/O.
 *
 * Frames: JSON in binary frames (as the anchor's trade stream), or MessagePack when the handshake carried
 * `Content-Type: application/msgpack`. A client may send text or binary JSON frames, and MessagePack binary
 * frames in MessagePack mode.
 */
import { decode, encode } from "@msgpack/msgpack";
import { fromNanos, toNanos } from "../domain/portfolioValue.ts";
import type { TradeEventRow } from "../store/tradeEventFeedRepository.ts";

export type FrameEncoding = "json" | "msgpack";

/** The streams a client may listen to; any other name is left out of the `listening` answer. */
export const STREAMS = ["trade_updates"] as const;
export type StreamName = (typeof STREAMS)[number];

/** Largest client message accepted (the server's frame limit is the same). */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

export interface TradeUpdateMessage {
  stream: "trade_updates";
  data: {
    event: string;
    execution_id?: string;
    order: Record<string, unknown>;
    timestamp: string;
    at: string;
    event_id: string;
    price?: string;
    qty?: string;
    position_qty?: string;
  };
}

/** A decimal column's value as the anchor prints numbers: a string without trailing zeros. */
const decimal = (value: string): string => fromNanos(toNanos(value));

/**
 * An event row as the anchor's `trade_updates` message. `timestamp` and `at` are both the event's time
 * (RFC 3339, UTC); `event_id` is the row's id; the fill fields appear only when set (fills and partial fills).
 */
export function tradeUpdateMessage(row: TradeEventRow): TradeUpdateMessage {
  const at = row.at.toISOString();
  return {
    stream: "trade_updates",
    data: {
      event: row.event,
      ...(row.execution_id === null ? {} : { execution_id: row.execution_id }),
      order: row.order,
      timestamp: at,
      at,
      event_id: String(row.id),
      ...(row.price === null ? {} : { price: decimal(row.price) }),
      ...(row.qty === null ? {} : { qty: decimal(row.qty) }),
      ...(row.position_qty === null ? {} : { position_qty: decimal(row.position_qty) }),
    },
  };
}

/** The answer to `authenticate` (`action: "authenticate"`), or to `listen` before authenticating (`"listen"`). */
export const authorizationMessage = (status: "authorized" | "unauthorized", action: "authenticate" | "listen") => ({
  stream: "authorization" as const,
  data: { status, action },
});

/** The answer to `listen`: the streams the connection now receives. */
export const listeningMessage = (streams: readonly StreamName[]) => ({
  stream: "listening" as const,
  data: { streams: [...streams] },
});

/** An in-stream error, the anchor's shape. */
export const errorMessage = (text: string) => ({ action: "error" as const, data: { error_message: text } });

/** The bytes of a frame carrying `message`, always sent as a binary frame. */
export function encodeFrame(message: unknown, encoding: FrameEncoding): Buffer {
  if (encoding === "json") return Buffer.from(JSON.stringify(message));
  const bytes = encode(message);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** What a client's frame asks for. */
export type ClientMessage =
  | { kind: "authenticate"; credentials: Credentials | undefined }
  | { kind: "listen"; streams: StreamName[] }
  | { kind: "invalid"; error: string };

/** Credentials of an `authenticate`/`auth` message: an OAuth access token or a key pair. */
export type Credentials = { kind: "oauth"; token: string } | { kind: "key"; keyId: string; secret: string };

/** Longest credential string looked up (tokens and secrets are far shorter). */
const MAX_CREDENTIAL_LENGTH = 512;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const credential = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" && value.length <= MAX_CREDENTIAL_LENGTH ? value : undefined;

function credentialsOf(message: Record<string, unknown>): Credentials | undefined {
  if (message.action === "auth") {
    // The newer form; key "oauth" carries an access token as its secret (the anchor's data-stream convention).
    const key = credential(message.key);
    const secret = credential(message.secret);
    if (!key || !secret) return undefined;
    return key === "oauth" ? { kind: "oauth", token: secret } : { kind: "key", keyId: key, secret };
  }
  const data = isRecord(message.data) ? message.data : {};
  const token = credential(data.oauth_token);
  if (token) return { kind: "oauth", token };
  const keyId = credential(data.key_id);
  const secret = credential(data.secret_key);
  return keyId && secret ? { kind: "key", keyId, secret } : undefined;
}

function decodeBody(data: Buffer, isBinary: boolean, encoding: FrameEncoding): unknown {
  if (isBinary && encoding === "msgpack") return decode(data, { maxStrLength: MAX_CLIENT_MESSAGE_BYTES });
  return JSON.parse(data.toString("utf8"));
}

/**
 * A client's frame as a request. Text frames and, in JSON mode, binary frames are JSON; binary frames in
 * MessagePack mode are MessagePack. Malformed or unknown messages are `invalid` (answered with an error, the
 * connection stays open); `authenticate` without usable credentials has `credentials: undefined`.
 */
export function parseClientMessage(data: Buffer, isBinary: boolean, encoding: FrameEncoding): ClientMessage {
  if (data.byteLength > MAX_CLIENT_MESSAGE_BYTES) return { kind: "invalid", error: "message too large" };
  let message: unknown;
  try {
    message = decodeBody(data, isBinary, encoding);
  } catch {
    return { kind: "invalid", error: "invalid syntax" };
  }
  if (!isRecord(message) || typeof message.action !== "string") return { kind: "invalid", error: "invalid syntax" };
  switch (message.action) {
    case "authenticate":
    case "auth":
      return { kind: "authenticate", credentials: credentialsOf(message) };
    case "listen": {
      const streams = isRecord(message.data) ? message.data.streams : undefined;
      if (!Array.isArray(streams)) return { kind: "invalid", error: "invalid syntax" };
      // Listening replaces the set; names the server does not offer are left out, duplicates dropped.
      return { kind: "listen", streams: STREAMS.filter((s) => streams.includes(s)) };
    }
    default:
      return { kind: "invalid", error: `unrecognized action: ${message.action.slice(0, 64)}` };
  }
}
