/**
 * The WebSocket client under the stream test clients (trade updates, market data): connect (JSON, or
 * MessagePack with the handshake's `Content-Type: application/msgpack`), decode every frame, send messages,
 * and wait for the next message that matches. What a frame holds (one message, an array of them) is the
 * caller's `messagesOf`.
 */
import { decode, encode } from "@msgpack/msgpack";
import { WebSocket } from "ws";

export interface SocketTestClient<M> {
  socket: WebSocket;
  /** Every message received so far, in order. */
  received: M[];
  /** Sends `message` as JSON text, or as a MessagePack binary frame in MessagePack mode. */
  send(message: unknown): void;
  /**
   * The next message (after the last one `next` returned) that `predicate` accepts; the ones before it are
   * passed over. Rejects after `timeoutMs` (default 5 s), or when the socket closes first.
   */
  next(predicate?: (message: M) => boolean, timeoutMs?: number): Promise<M>;
  /** Resolves with the close code and reason once the socket is closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Closes the socket (1000) and waits for it. */
  close(): Promise<void>;
}

export interface ConnectSocketTestClientOptions {
  msgpack?: boolean;
  headers?: Record<string, string>;
  /** Answer the server's pings (default true; false plays a dead peer). */
  autoPong?: boolean;
}

/** A received frame: its decoded content, whether it was binary, and its bytes. */
export interface ReceivedFrame {
  decoded: unknown;
  binary: boolean;
  bytes: Buffer;
}

/** Opens `url`; resolves once the handshake is done (rejects on a refused handshake). */
export async function connectSocketTestClient<M>(
  url: string,
  messagesOf: (frame: ReceivedFrame) => M[],
  { msgpack = false, headers = {}, autoPong = true }: ConnectSocketTestClientOptions = {},
): Promise<SocketTestClient<M>> {
  const socket = new WebSocket(url, {
    autoPong,
    headers: { ...(msgpack ? { "Content-Type": "application/msgpack" } : {}), ...headers },
  });
  const received: M[] = [];
  const waiters = new Set<() => void>();
  let position = 0;
  let closedWith: { code: number; reason: string } | undefined;

  socket.on("message", (data, binary) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    const decoded = msgpack && binary ? decode(bytes) : JSON.parse(bytes.toString("utf8"));
    received.push(...messagesOf({ decoded, binary, bytes }));
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
    send(message) {
      if (msgpack) socket.send(encode(message), { binary: true });
      else socket.send(JSON.stringify(message));
    },
    next(predicate = () => true, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (let i = position; i < received.length; i++) {
            const message = received[i] as M;
            if (!predicate(message)) continue;
            position = i + 1;
            done();
            return resolve(message);
          }
          position = received.length;
          if (closedWith) {
            done();
            reject(new Error(`stream closed (${closedWith.code} ${closedWith.reason}) before the message came`));
          }
        };
        const timer = setTimeout(() => {
          done();
          const last = received.slice(-3).map((m) => JSON.stringify(m));
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
    closed,
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close(1000);
      await closed;
    },
  };
}
