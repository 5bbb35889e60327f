/**
 * The clients of the trading benchmarks, in the benchmark's own process (never the server's): orders placed
 * over keep-alive HTTP with a bearer token, trade-update stream connections opened with the package's test
 * client (`connectTradeStream`) that note when each message arrives. Their timings are summarized with
 * `../lib/latency.ts`.
 */
import { Agent, request } from "node:http";
import { connectTradeStream, type TradeStreamClient } from "@platform/brokerage/testing";

export interface PlacedOrder {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the answer's fields are read by name and checked by the caller.
  body: any;
  /** `performance.now()` when the request was written, and when its answer was read whole. */
  sentAt: number;
  answeredAt: number;
}

/** Places orders on `origin` over kept-alive connections (up to `sockets` at once). */
export function orderPlacer(origin: string, sockets = 64) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const { hostname, port } = new URL(origin);
  return {
    place(token: string, order: Record<string, unknown>): Promise<PlacedOrder> {
      const payload = JSON.stringify(order);
      return new Promise((resolve, reject) => {
        const sentAt = performance.now();
        const req = request(
          {
            agent,
            hostname,
            port,
            method: "POST",
            path: "/v2/orders",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(payload),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString("utf8");
              resolve({
                status: res.statusCode ?? 0,
                body: text ? JSON.parse(text) : undefined,
                sentAt,
                answeredAt: performance.now(),
              });
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/**
 * The order the latency parts place: a market order of one share of AAPL, filled at once (the market is open
 * at every hour on the benchmark's server), under `clientOrderId` so its trade updates can be told apart.
 */
export function marketOrder(side: "buy" | "sell", clientOrderId: string) {
  return { symbol: "AAPL", qty: "1", side, type: "market", time_in_force: "day", client_order_id: clientOrderId };
}

/** A trade update as it arrived at one connection. */
export interface Arrival {
  /** `performance.now()` and `Date.now()` at arrival. */
  at: number;
  wallAt: number;
  data: { event: string; event_id: string; at: string; order: { id: string; client_order_id: string } };
}

/**
 * Opens `/stream` of the trading host at `origin`, authenticates with `token` (OAuth) and listens to
 * `trade_updates`; `onTradeUpdate` is called with every trade update as it arrives (timed in the socket's own
 * message event, after the test client parsed it). Rejects if the server refuses.
 */
export async function openListener(
  origin: string,
  token: string,
  onTradeUpdate: (arrival: Arrival) => void,
): Promise<TradeStreamClient> {
  const client = await connectTradeStream(`${origin.replace(/^http/, "ws")}/stream`);
  client.send({ action: "authenticate", data: { oauth_token: token } });
  const authorization = await client.next((m) => m.stream === "authorization", 10_000);
  if ((authorization.data as { status: string }).status !== "authorized") {
    throw new Error(`stream authentication refused: ${JSON.stringify(authorization)}`);
  }
  client.send({ action: "listen", data: { streams: ["trade_updates"] } });
  await client.next((m) => m.stream === "listening", 10_000);
  // The test client's own handler ran first (it was registered first): the message is its last one.
  client.socket.on("message", () => {
    const at = performance.now();
    const { message } = client.received.at(-1) as { message: Record<string, unknown> };
    if (message.stream !== "trade_updates") return;
    onTradeUpdate({ at, wallAt: Date.now(), data: message.data as Arrival["data"] });
  });
  return client;
}
