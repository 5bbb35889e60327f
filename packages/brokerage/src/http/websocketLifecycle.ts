/**
 * What every WebSocket route of the brokerage (the trade-update stream, the market data streams) does the same
 * way: closing a socket without waiting on a peer that does not answer, closing them all at shutdown, and the
 * keepalive that cuts a peer which missed a pong (a half-open socket holds no slot and no memory for long).
 */
import type { WebSocket } from "ws";

/** After a close frame, how long a peer may take to answer before its socket is cut. */
const CLOSE_GRACE_MS = 2_000;
/** How long a shutdown waits for peers to answer the close before cutting their sockets. */
const SHUTDOWN_GRACE_MS = 1_000;

/** Closes `socket` with `code`, and cuts it if the peer has not answered the close within the grace period. */
export function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSED) return;
  if (socket.readyState !== socket.CLOSING) socket.close(code, reason);
  setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
}

/** Closes every socket with 1001 and resolves once all are closed (cut after the shutdown grace period). */
export async function closeAllSockets(sockets: Iterable<WebSocket>): Promise<void> {
  await Promise.all(
    [...sockets].map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === socket.CLOSED) return resolve();
          socket.once("close", () => resolve());
          closeSocket(socket, 1001, "server shutting down");
          setTimeout(() => socket.terminate(), SHUTDOWN_GRACE_MS).unref();
        }),
    ),
  );
}

/**
 * Pings `socket` every `intervalMs`; a peer that has not answered the previous ping when the next is due is
 * cut. `onAnsweredPing` runs at each ping sent to a peer that answered the one before (a lease renewal).
 * Returns the function that stops it.
 */
export function keepAlive(socket: WebSocket, intervalMs: number, onAnsweredPing?: () => void): () => void {
  let answered = true;
  socket.on("pong", () => {
    answered = true;
  });
  const pinger = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
    onAnsweredPing?.();
  }, intervalMs);
  return () => clearInterval(pinger);
}

/** A received message's bytes, whichever form `ws` hands them in. */
export function frameBytes(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
