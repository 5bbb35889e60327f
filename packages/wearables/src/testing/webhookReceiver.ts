/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every delivery (headers, raw body,
 * arrival) and answers what the test scripts (`respond`: a status, headers, a delay, or the default 200).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  at: number;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long (a slow receiver); the default answers at once. */
  delayMs?: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** How the next requests are answered (called per request, in order); default 200. */
  respond(answer: (request: ReceivedWebhook) => ScriptedAnswer): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let answer: (r: ReceivedWebhook) => ScriptedAnswer = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        path: req.url ?? "",
        at: Date.now(),
      };
      received.push(r);
      const a = answer(r);
      const send = () => {
        if (!res.destroyed) res.writeHead(a.status, a.headers).end(a.body ?? "ok");
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respond(fn) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
