/**
 * Sends one request with `node:http` (not fetch, which normalises paths and refuses bodies on GET) and
 * reads the whole answer, timing it. A request that gets no answer within `timeoutMs` is aborted and
 * reported as such, so a hang fails the case instead of the test run.
 */
import { Agent, request } from "node:http";
import type { HttpRequest } from "./fuzzCase.ts";

export interface HttpAnswer {
  status: number;
  contentType: string;
  body: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export async function sendRequest(origin: string, req: HttpRequest, timeoutMs: number): Promise<HttpAnswer> {
  try {
    return await sendOnce(origin, req, timeoutMs);
  } catch (error) {
    // A kept-alive socket the server closed meanwhile: the request never reached it, send it again once.
    if ((error as { reusedSocket?: boolean }).reusedSocket) return sendOnce(origin, req, timeoutMs);
    throw error;
  }
}

function sendOnce(origin: string, req: HttpRequest, timeoutMs: number): Promise<HttpAnswer> {
  const url = new URL(origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.target,
        headers: req.body ? { ...req.headers, "content-length": String(req.body.length) } : req.headers,
        timeout: timeoutMs,
      },
      (incoming) => {
        // A server-sent events stream never ends: its answer is its status and headers.
        if (String(incoming.headers["content-type"] ?? "").startsWith("text/event-stream")) {
          incoming.destroy();
          return resolve({
            status: incoming.statusCode ?? 0,
            contentType: String(incoming.headers["content-type"]),
            body: "",
            ms: performance.now() - started,
          });
        }
        const chunks: Buffer[] = [];
        incoming.on("data", (c: Buffer) => chunks.push(c));
        incoming.on("error", reject);
        incoming.on("end", () =>
          resolve({
            status: incoming.statusCode ?? 0,
            contentType: String(incoming.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks).toString("utf8"),
            ms: performance.now() - started,
          }),
        );
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on("error", (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket && code === "ECONNRESET" }));
    });
    outgoing.end(req.body);
  });
}

/** Closes the kept-alive sockets. */
export const closeConnections = (): void => agent.destroy();
