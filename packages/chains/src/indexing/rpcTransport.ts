/**
 * JSON-RPC over HTTP(S) with `node:http`, for indexers that read hundreds of megabytes of replies.
 * Measured on the crosschain backfill's 134 MB of `eth_getLogs` replies (bench/README): `fetch`
 * (undici) cost 1–3.5 CPU-s per pass and a full garbage collection every ~200 ms, as every reply went
 * through web streams and a concatenation; `node:http` writing each reply into one buffer of its
 * announced length cost 0.15–0.5 CPU-s and no full collection.
 *
 * @example
 * const post = createRpcTransport({ url: "http://127.0.0.1:8545", timeoutMs: 15_000 });
 * const bytes = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }));
 */
import http from "node:http";
import https from "node:https";
import { RpcRequestError } from "./rpcErrors.ts";

/** Largest reply read (a node answering more is refused rather than exhausting memory). */
export const MAX_REPLY_BYTES = 512 * 1024 * 1024;

export interface RpcTransportParameters {
  url: string;
  timeoutMs: number;
}

/** A function posting one JSON body and resolving with the reply's bytes; failures reject with RpcRequestError. */
export type RpcTransport = (body: string) => Promise<Buffer>;

export function createRpcTransport(p: RpcTransportParameters): RpcTransport {
  const url = new URL(p.url);
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  const agent = new client.Agent({ keepAlive: true });
  const auth = url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  const failure = (details: string, o: { status?: number; cause?: unknown } = {}) =>
    new RpcRequestError({ url: p.url, details, ...o });

  return (body) =>
    new Promise<Buffer>((resolve, reject) => {
      const req = client.request(
        {
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          agent,
          auth,
          timeout: p.timeoutMs,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(failure(`answered HTTP ${res.statusCode}`, { status: res.statusCode }));
            return;
          }
          const announced = Number(res.headers["content-length"]);
          if (announced > MAX_REPLY_BYTES) {
            req.destroy();
            reject(failure(`answered more than ${MAX_REPLY_BYTES} bytes`));
            return;
          }
          // One buffer of the announced length; replies without one are gathered in chunks.
          let reply = Number.isSafeInteger(announced) && announced >= 0 ? Buffer.allocUnsafe(announced) : undefined;
          const chunks: Buffer[] = [];
          let length = 0;
          res.on("data", (chunk: Buffer) => {
            if (reply && length + chunk.length <= reply.length) chunk.copy(reply, length);
            else {
              if (reply) {
                // Longer than announced: keep what came, in chunks.
                chunks.push(reply.subarray(0, length));
                reply = undefined;
              }
              chunks.push(chunk);
            }
            length += chunk.length;
            if (length > MAX_REPLY_BYTES) {
              req.destroy();
              reject(failure(`answered more than ${MAX_REPLY_BYTES} bytes`));
            }
          });
          res.on("end", () => {
            if (reply) resolve(length === reply.length ? reply : reply.subarray(0, length));
            else resolve(Buffer.concat(chunks, length));
          });
          res.on("error", (error) => reject(failure(`failed: ${error.message}`, { cause: error })));
          res.on("aborted", () => reject(failure("closed the reply early")));
        },
      );
      req.on("timeout", () => req.destroy(failure(`did not answer in ${p.timeoutMs} ms`)));
      req.on("error", (error) =>
        reject(error instanceof RpcRequestError ? error : failure(`failed: ${error.message}`, { cause: error })),
      );
      req.end(body);
    });
}
