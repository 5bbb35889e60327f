/**
 * A tiny promise-based client of the trade-update stream (`/stream`) for tests: connect (JSON, or MessagePack
 * with the handshake's `Content-Type: application/msgpack`), send messages, and wait for the next message
 * that matches.
 */
import { decode, encode } from "@msgpack/msgpack";
import { WebSocket } from "ws";

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
}

/** Opens `url` (`ws://host:port/stream`); resolves once the handshake is done. */
export async function connectTradeStream(
  url: string,
  { msgpack = false, autoPong = true }: ConnectTradeStreamOptions = {},
): Promise<TradeStreamClient> {
  const socket = new WebSocket(url, {
    autoPong,
    headers: msgpack ? { "Content-Type": "application/msgpack" } : {},
  });
  const received: ReceivedMessage[] = [];
  const waiters = new Set<() => void>();
  let position = 0;
  let closedWith: { code: number; reason: string } | undefined;

  socket.on("message", (data, binary) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    const message = (msgpack && binary ? decode(bytes) : JSON.parse(bytes.toString("utf8"))) as Record<string, unknown>;
    received.push({ message, binary });
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => {
      closedWith = { code, reason: reason.toString() };
      resolve(closedWith);
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  socket.on("error", () => {});

  return {
    socket,
    received,
    closed,
    send(message) {
      if (msgpack) socket.send(encode(message), { binary: true });
      else socket.send(JSON.stringify(message));
    },
    next(predicate = () => true, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (let i = position; i < received.length; i++) {
            const entry = received[i] as ReceivedMessage;
            if (!predicate(entry.message)) continue;
            position = i + 1;
            done();
            return resolve(entry.message);
          }
          position = received.length;
          if (closedWith) {
            done();
            reject(new Error(`stream closed (${closedWith.code} ${closedWith.reason}) before the message came`));
          }
        };
        const timer = setTimeout(() => {
          done();
          const last = received.slice(-3).map((r) => JSON.stringify(r.message));
          reject(new Error(`no matching message in ${timeoutMs} ms; last received: ${last.join(" ")}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close(1000);
      await closed;
    },
  };
}
