/**
 * The trading parts of the brokerage benchmark, on PGlite and on PostgreSQL (when the local server answers;
 * `BENCH_DRIVERS` chooses): for each driver a fresh database with the accounts of every part
 * (`tradingDatabase.ts`), then the parts selected, one server process at a time:
 * - `orders` (`orders.ts`): `POST /v2/orders` against a minimal insert route (goal ≥ 70 % of its req/s);
 * - `fillLatency` (`fillLatency.ts`): POST sent → `fill` frame, one order at a time;
 * - `streamFanout` (`streamFanout.ts`): 1,000 listening connections while orders flow.
 * Knobs: BENCH_DURATION (s per load, default 10), BENCH_ORDER_ACCOUNTS (1000), BENCH_ORDER_CONNECTIONS (32),
 * BENCH_FILL_SAMPLES (200), BENCH_STREAM_CONNECTIONS (1000), BENCH_STREAM_ACCOUNTS (100),
 * BENCH_STREAM_ORDERS_PER_SEC (20).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Driver } from "../lib/benchDatabase.ts";
import type { LatencySummary } from "../lib/latency.ts";
import { startServerScript } from "../lib/processes.ts";
import { writeResults } from "../lib/results.ts";
import { type FillLatencyResult, fillLatencyBenchmark } from "./fillLatency.ts";
import { type OrderLoad, type OrdersRow, ordersBenchmark } from "./orders.ts";
import { type StreamFanoutResult, streamFanoutBenchmark } from "./streamFanout.ts";
import { freshTradingDatabase, prepareTradingData } from "./tradingDatabase.ts";

export const TRADING_PARTS = ["orders", "fillLatency", "streamFanout"] as const;

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const durationSec = knob("BENCH_DURATION", 10);
const orderAccounts = knob("BENCH_ORDER_ACCOUNTS", 1000);
const orderConnections = knob("BENCH_ORDER_CONNECTIONS", 32);
const fillSamples = knob("BENCH_FILL_SAMPLES", 200);
const streamConnections = knob("BENCH_STREAM_CONNECTIONS", 1000);
const streamAccounts = knob("BENCH_STREAM_ACCOUNTS", 100);
const streamOrdersPerSec = knob("BENCH_STREAM_ORDERS_PER_SEC", 20);

const ms = (s: LatencySummary) => `p50 ${s.p50} ms, p99 ${s.p99} ms`;
const cpu = ({ cpu: c }: OrderLoad) =>
  `CPU ms/request: server ${c.serverMs} (busy ${Math.round(c.serverBusy * 100)} %), PostgreSQL ${c.postgresMs}, machine ${c.machineMs}`;

/** Runs the selected trading parts on every available driver, prints them and writes them to the results. */
export async function runTradingParts(parts: readonly string[]): Promise<void> {
  const selected = TRADING_PARTS.filter((p) => parts.includes(p));
  if (selected.length === 0) return;
  const wanted = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",") as Driver[];
  const orders: OrdersRow[] = [];
  const fills: (FillLatencyResult & { driver: Driver })[] = [];
  const fanouts: (StreamFanoutResult & { driver: Driver })[] = [];
  for (const driver of (["pglite", "postgres"] as const).filter((d) => wanted.includes(d))) {
    if (!(await freshTradingDatabase(driver))) {
      process.stdout.write(`brokerage bench: no PostgreSQL server answers; trading parts on ${driver} skipped\n`);
      continue;
    }
    process.stdout.write(`brokerage bench: preparing ${orderAccounts + 1 + streamAccounts} accounts on ${driver}...\n`);
    const data = await prepareTradingData(driver, { orderAccounts, fanoutAccounts: streamAccounts });
    const dir = mkdtempSync(join(tmpdir(), "bench-brokerage-trading-"));
    const dataFile = join(dir, "trading.json");
    writeFileSync(dataFile, JSON.stringify(data));
    try {
      if (selected.includes("orders")) {
        process.stdout.write(`brokerage bench: orders on ${driver}...\n`);
        orders.push(await ordersBenchmark(driver, data, dataFile, { durationSec, connections: orderConnections }));
      }
      const env = { BENCH_DRIVER: driver, BENCH_WRITER: "on" };
      if (selected.includes("fillLatency")) {
        process.stdout.write(`brokerage bench: fill latency on ${driver}...\n`);
        const server = await startServerScript(here("./tradingServer.ts"), env);
        try {
          const result = await fillLatencyBenchmark(server.info.url as string, data.fillAccount, {
            samples: fillSamples,
            warmup: 20,
          });
          fills.push({ driver, ...result });
        } finally {
          await server.stop();
        }
      }
      if (selected.includes("streamFanout")) {
        process.stdout.write(`brokerage bench: stream fan-out on ${driver}...\n`);
        const server = await startServerScript(here("./tradingServer.ts"), env);
        try {
          const result = await streamFanoutBenchmark({
            origin: server.info.url as string,
            serverPid: Number(server.info.pid),
            accounts: data.fanoutAccounts,
            connections: streamConnections,
            ordersPerSec: streamOrdersPerSec,
            durationSec,
          });
          fanouts.push({ driver, ...result });
        } finally {
          await server.stop();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const file = writeResults("brokerage", {
    ...(selected.includes("orders")
      ? { orders: { durationSec, connections: orderConnections, accounts: orderAccounts, rows: orders } }
      : {}),
    ...(selected.includes("fillLatency") ? { fillLatency: { rows: fills } } : {}),
    ...(selected.includes("streamFanout") ? { streamFanout: { rows: fanouts } } : {}),
  });
  for (const r of orders) {
    process.stdout.write(
      `${r.driver.padEnd(8)} POST /v2/orders (resting limit, ${orderAccounts} accounts, ${orderConnections} connections)  ` +
        `service ${String(r.service.rps).padStart(5)} req/s (p50 ${r.service.p50} ms, p99 ${r.service.p99} ms)  ` +
        `baseline ${String(r.baseline.rps).padStart(5)} req/s (p50 ${r.baseline.p50} ms, p99 ${r.baseline.p99} ms)  ` +
        `ratio ${(r.ratio * 100).toFixed(1)} %  goal ≥ 70 %: ${r.ratio >= 0.7 ? "met" : "NOT met"}\n` +
        `${r.driver.padEnd(8)}   without the writer ${String(r.withoutWriter.rps).padStart(5)} req/s ` +
        `(p50 ${r.withoutWriter.p50} ms, p99 ${r.withoutWriter.p99} ms)  ratio ${(r.ratioWithoutWriter * 100).toFixed(1)} %; ` +
        `the writer caught up ${r.writerCaughtUpMs} ms after the load ` +
        `(${r.writerCaughtUpMs < 1000 ? "it kept up: ≥ " : "it fell behind, executing "}${r.writerOrdersPerSec} orders/s)\n` +
        `${r.driver.padEnd(8)}   service ${cpu(r.service)}; without the writer ${cpu(r.withoutWriter)}; baseline ${cpu(r.baseline)}\n`,
    );
  }
  for (const r of fills) {
    process.stdout.write(
      `${r.driver.padEnd(8)} fill latency (market, 1 share, one at a time, ${r.samples} orders)  POST → fill frame ` +
        `${ms(r.postToFill)} (max ${r.postToFill.max} ms)  POST answered ${ms(r.postAnswered)}  ` +
        `POST → event at ${ms(r.postToEventAt)}  event at → frame (writer's share) ${ms(r.eventAtToFrame)}\n`,
    );
  }
  for (const r of fanouts) {
    const d = r.delivery;
    process.stdout.write(
      `${r.driver.padEnd(8)} stream fan-out ${r.connections} connections / ${r.accounts} accounts  connect all ` +
        `${r.connect.totalSec} s (each ${ms(r.connect.perConnection)})  RSS ${r.rssMiB.before} → ${r.rssMiB.listening} MiB ` +
        `(${r.rssMiB.perConnectionKiB} KiB a connection), ${r.rssMiB.afterOrders} MiB after the orders\n` +
        `${r.driver.padEnd(8)}   ${r.orders.placed} market orders at ${r.orders.ordersPerSec}/s (answered ${ms(r.orders.answered)}): ` +
        `${d.delivered}/${d.expected} deliveries, ${d.misordered} out of order; POST → each listener ${ms(d.perListener)}; ` +
        `POST → last listener ${ms(d.toLastListener)}; event at → last listener ${ms(d.eventAtToLastListener)}\n`,
    );
  }
  process.stdout.write(`written ${file}\n`);
}
