/**
 * A tiny promise-based client of the trade-update stream (`/stream`) for tests, on `socketTestClient.ts`: one
 * message per frame, each with whether it came in a binary frame.
 */
import type { WebSocket } from "ws";
import { connectSocketTestClient } from "./socketTestClient.ts";

/** A decoded server message, with whether it came in a binary frame. */
export interface ReceivedMessage {
  message: Record<string, unknown>;
  binary: boolean;
}

export interface TradeStreamClient {
  socket: WebSocket;
  /** Every message received so far, in order. */
  received: ReceivedMessage[];
  /** Sends `message` as JSON text, or as a MessagePack binary frame in MessagePack mode. */
  send(message: unknown): void;
  /**
   * The next message (after the last one `next` returned) that `predicate` accepts; the ones before it are
   * passed over. Rejects after `timeoutMs` (default 5 s), or when the socket closes first.
   */
  next(predicate?: (message: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the close code and reason once the socket is closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Closes the socket (1000) and waits for it. */
  close(): Promise<void>;
}

export interface ConnectTradeStreamOptions {
  msgpack?: boolean;
  /** Answer the server's pings (default true; false plays a dead peer). */
  autoPong?: boolean;
  /** Headers of the handshake (e.g. `X-Forwarded-For` behind a trusted proxy). */
  headers?: Record<string, string>;
}

/** Opens `url` (`ws://host:port/stream`); resolves once the handshake is done. */
export async function connectTradeStream(
  url: string,
  { msgpack = false, autoPong = true, headers }: ConnectTradeStreamOptions = {},
): Promise<TradeStreamClient> {
  const client = await connectSocketTestClient<ReceivedMessage>(
    url,
    ({ decoded, binary }) => [{ message: decoded as Record<string, unknown>, binary }],
    { msgpack, autoPong, headers },
  );
  return {
    ...client,
    next: (predicate = () => true, timeoutMs) =>
      client.next((entry) => predicate(entry.message), timeoutMs).then((entry) => entry.message),
  };
}
