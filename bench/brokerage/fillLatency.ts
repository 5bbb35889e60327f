/**
 * Fill → trade-update latency (`fillLatency`): one client listens on the trading host's `/stream` with the
 * account's token; market orders of one share (buy, then sell, so the position stays flat) are placed one at
 * a time, each after the previous one's `fill` frame arrived. For each order:
 * - POST sent → `fill` frame arrived (the goal's number: what a trading app waits for);
 * - POST sent → answer read (the placement's transaction);
 * - POST sent → the fill event's `at` (the instant the exchange writer executed the command: the placement,
 *   the writer's wake-up and its lease and command reads), and `at` → frame arrival (the writer's ledger
 *   transaction, the hub's read of the event and the frame): the writer's share. Both compare the server's
 *   clock (`at`, ms resolution) with this process's `Date.now()`: ±1 ms each.
 */
import { type LatencySummary, summarize, waitUntil } from "../lib/latency.ts";
import { type Arrival, marketOrder, openListener, orderPlacer } from "./tradingClients.ts";
import type { TradingAccount } from "./tradingDatabase.ts";

export interface FillLatencyResult {
  samples: number;
  postToFill: LatencySummary;
  postAnswered: LatencySummary;
  postToEventAt: LatencySummary;
  eventAtToFrame: LatencySummary;
}

/** Runs `warmup + samples` orders one at a time on `origin` (the writer must run there). */
export async function fillLatencyBenchmark(
  origin: string,
  account: TradingAccount,
  { samples, warmup }: { samples: number; warmup: number },
): Promise<FillLatencyResult> {
  const fills = new Map<string, Arrival>();
  const listener = await openListener(origin, account.token, (arrival) => {
    if (arrival.data.event === "fill") fills.set(arrival.data.order.client_order_id, arrival);
  });
  const placer = orderPlacer(origin, 1);
  const measured = {
    postToFill: [] as number[],
    postAnswered: [] as number[],
    toAt: [] as number[],
    atTo: [] as number[],
  };
  try {
    for (let i = 0; i < warmup + samples; i++) {
      const clientOrderId = `fill-${i}`;
      const sentWall = Date.now();
      const placed = await placer.place(account.token, marketOrder(i % 2 === 0 ? "buy" : "sell", clientOrderId));
      if (placed.status !== 200) throw new Error(`order ${i} refused: ${placed.status} ${JSON.stringify(placed.body)}`);
      // The fill may come before the answer is read: arrivals are kept by client order id.
      if (!(await waitUntil(() => fills.has(clientOrderId), 10_000))) {
        throw new Error(`no fill frame for order ${placed.body.id} within 10 s`);
      }
      const fill = fills.get(clientOrderId) as Arrival;
      if (i < warmup) continue;
      const at = Date.parse(fill.data.at);
      measured.postToFill.push(fill.at - placed.sentAt);
      measured.postAnswered.push(placed.answeredAt - placed.sentAt);
      measured.toAt.push(at - sentWall);
      measured.atTo.push(fill.wallAt - at);
    }
  } finally {
    placer.close();
    await listener.close();
  }
  return {
    samples,
    postToFill: summarize(measured.postToFill),
    postAnswered: summarize(measured.postAnswered),
    postToEventAt: summarize(measured.toAt),
    eventAtToFrame: summarize(measured.atTo),
  };
}
