/**
 * Trade-update fan-out (`streamFanout`): `connections` `/stream` connections spread over `accounts` accounts
 * (connection c listens to account c mod accounts, authenticated with its OAuth token), opened 50 at a time;
 * then, for `durationSec`, market orders of one share at `ordersPerSec` (open loop: order k is sent at k /
 * ordersPerSec s whatever the answers), round-robin over the accounts (buy, then sell, per account). Reported:
 * - connect: the wall time until all listen, and per connection (handshake, `authenticate`, `listen`);
 * - memory: the server's RSS before connecting, once all listen, and after the orders (delta per connection);
 * - delivery: for every event of the orders (`new`, `fill`) and every listener of its account, POST sent →
 *   frame arrived; per event, POST sent → its last listener had it, and the event's `at` → that moment (the
 *   writer's commit, the hub's read and the fan-out; server clock vs this process's, ±1 ms); and whether
 *   every listener got every event of its account once, in order.
 */
import type { TradeStreamClient } from "@platform/brokerage/testing";
import { type LatencySummary, summarize, waitUntil } from "../lib/latency.ts";
import { rssMiB } from "../lib/processes.ts";
import { type Arrival, marketOrder, openListener, orderPlacer } from "./tradingClients.ts";
import type { TradingAccount } from "./tradingDatabase.ts";

const CONNECT_PARALLEL = 50;
const EVENTS_PER_ORDER = 2; // new, fill

export interface StreamFanoutResult {
  connections: number;
  accounts: number;
  connect: { totalSec: number; perConnection: LatencySummary };
  rssMiB: { before: number; listening: number; afterOrders: number; perConnectionKiB: number };
  orders: { placed: number; ordersPerSec: number; answered: LatencySummary };
  delivery: {
    expected: number;
    delivered: number;
    /** Deliveries that came twice or out of order (must be 0). */
    misordered: number;
    perListener: LatencySummary;
    toLastListener: LatencySummary;
    eventAtToLastListener: LatencySummary;
  };
}

export async function streamFanoutBenchmark(o: {
  origin: string;
  serverPid: number;
  accounts: TradingAccount[];
  connections: number;
  ordersPerSec: number;
  durationSec: number;
}): Promise<StreamFanoutResult> {
  const byClientOrderId = new Map<string, { sentAt: number; account: number }>();
  /** Per connection, the event ids received in order; per event, its arrivals. */
  const received: string[][] = [];
  const arrivals = new Map<string, { wallAt: number; eventAt: number; times: number[]; clientOrderId: string }>();
  const clients: TradeStreamClient[] = [];

  const before = rssMiB(o.serverPid);
  const connectTimes: number[] = [];
  const connectStart = performance.now();
  for (let first = 0; first < o.connections; first += CONNECT_PARALLEL) {
    const batch = Array.from({ length: Math.min(CONNECT_PARALLEL, o.connections - first) }, (_, k) => first + k);
    const opened = await Promise.all(
      batch.map(async (c) => {
        const started = performance.now();
        received[c] = [];
        const account = o.accounts[c % o.accounts.length] as TradingAccount;
        const client = await openListener(o.origin, account.token, (arrival: Arrival) => {
          const { event_id: id, at, order } = arrival.data;
          (received[c] as string[]).push(id);
          const entry = arrivals.get(id) ?? {
            wallAt: 0,
            eventAt: Date.parse(at),
            times: [],
            clientOrderId: order.client_order_id,
          };
          entry.times.push(arrival.at);
          entry.wallAt = Math.max(entry.wallAt, arrival.wallAt);
          arrivals.set(id, entry);
        });
        connectTimes.push(performance.now() - started);
        return client;
      }),
    );
    clients.push(...opened);
  }
  const connectSec = (performance.now() - connectStart) / 1000;
  await new Promise((r) => setTimeout(r, 1_000));
  const listening = rssMiB(o.serverPid);

  const placer = orderPlacer(o.origin);
  const total = Math.round(o.ordersPerSec * o.durationSec);
  const answered: number[] = [];
  const refused: string[] = [];
  const placements: Promise<void>[] = [];
  const flowStart = performance.now();
  try {
    for (let k = 0; k < total; k++) {
      const due = flowStart + (k * 1000) / o.ordersPerSec;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const accountIndex = k % o.accounts.length;
      const account = o.accounts[accountIndex] as TradingAccount;
      const clientOrderId = `fan-${k}`;
      byClientOrderId.set(clientOrderId, { sentAt: performance.now(), account: accountIndex });
      const side = Math.floor(k / o.accounts.length) % 2 === 0 ? "buy" : "sell";
      placements.push(
        placer.place(account.token, marketOrder(side, clientOrderId)).then(
          (placed) => {
            if (placed.status === 200) answered.push(placed.answeredAt - placed.sentAt);
            else refused.push(`order ${k}: ${placed.status} ${JSON.stringify(placed.body)}`);
          },
          (error: Error) => {
            refused.push(`order ${k}: ${error.message}`);
          },
        ),
      );
    }
    await Promise.all(placements);
    if (refused.length > 0) throw new Error(`${refused.length} orders failed, first: ${refused[0]}`);
    const listenersOf = (account: number) =>
      Math.floor(o.connections / o.accounts.length) + (account < o.connections % o.accounts.length ? 1 : 0);
    let expected = 0;
    for (const { account } of byClientOrderId.values()) expected += EVENTS_PER_ORDER * listenersOf(account);
    const deliveredCount = () => received.reduce((n, ids) => n + ids.length, 0);
    await waitUntil(() => deliveredCount() >= expected, 10_000);
    const afterOrders = rssMiB(o.serverPid);

    const perListener: number[] = [];
    const toLast: number[] = [];
    const atToLast: number[] = [];
    for (const entry of arrivals.values()) {
      const sent = byClientOrderId.get(entry.clientOrderId);
      if (!sent) continue;
      for (const t of entry.times) perListener.push(t - sent.sentAt);
      toLast.push(Math.max(...entry.times) - sent.sentAt);
      atToLast.push(entry.wallAt - entry.eventAt);
    }
    let misordered = 0;
    for (const ids of received) {
      for (let i = 1; i < ids.length; i++) if (BigInt(ids[i] as string) <= BigInt(ids[i - 1] as string)) misordered++;
    }
    return {
      connections: o.connections,
      accounts: o.accounts.length,
      connect: { totalSec: Math.round(connectSec * 100) / 100, perConnection: summarize(connectTimes) },
      rssMiB: {
        before,
        listening,
        afterOrders,
        perConnectionKiB: Math.round(((listening - before) * 1024) / o.connections),
      },
      orders: { placed: total, ordersPerSec: o.ordersPerSec, answered: summarize(answered) },
      delivery: {
        expected,
        delivered: deliveredCount(),
        misordered,
        perListener: summarize(perListener),
        toLastListener: summarize(toLast),
        eventAtToLastListener: summarize(atToLast),
      },
    };
  } finally {
    await Promise.all(placements);
    placer.close();
    await Promise.all(clients.map((c) => c.close()));
  }
}
