/**
 * Order placement (`orders`): `POST /v2/orders` of resting limit orders (`orderLoad.ts`: one share far below
 * the market, round-robin over many accounts) at a fixed concurrency, each server in its own process, one at
 * a time, on the same fresh database:
 * 1. the baseline (`orderBaselineServer.ts`: the token's account read, then the same order row inserted in one
 *    transaction); its rows are deleted afterwards, so the service starts from the same database;
 * 2. for information, the service without its jobs (`BENCH_WRITER=off`): placement alone; rows deleted too;
 * 3. the service with the exchange writer running (the goal: ≥ 70 % of the baseline's req/s). After the load,
 *    one more order is placed and timed until the writer made it `new`: the writer executes commands in
 *    order, so that is how far behind the placements it was (its backlog's drain time), and with it the
 *    writer's own rate. Each load also records the CPU time per request of the server, PostgreSQL and the
 *    machine, which says what bounds it on a 2-core machine.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Driver } from "../lib/benchDatabase.ts";
import { cpuMeter } from "../lib/cpuMeter.ts";
import { assertCleanLoad, type LoadResult, runLoadScript, startServerScript } from "../lib/processes.ts";
import { orderPlacer } from "./tradingClients.ts";
import { openTradingDatabase, type TradingData } from "./tradingDatabase.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

/**
 * CPU time per request during the measured load, in ms: of the server process (its one event loop: its
 * `busy` share of the wall time near 1 means it is the bound), of every PostgreSQL process, of the machine.
 */
export interface CpuPerRequest {
  serverMs: number;
  postgresMs: number;
  machineMs: number;
  serverBusy: number;
}

export type OrderLoad = LoadResult & { cpu: CpuPerRequest };

export interface OrdersRow {
  driver: Driver;
  baseline: OrderLoad;
  service: OrderLoad;
  ratio: number;
  /** For information: the service without the exchange writer (nor the equity snapshots) beside it. */
  withoutWriter: OrderLoad;
  ratioWithoutWriter: number;
  /** After the load: ms until an order placed then was `new` (how far behind the placements the writer was). */
  writerCaughtUpMs: number;
  /**
   * The orders placed since the warm-up began over the time until the writer had executed them all: the
   * writer's rate when it fell behind (a caught-up time of seconds), a lower bound of it when it kept up.
   */
  writerOrdersPerSec: number;
}

/** Runs `orderLoad.ts` in its own process against `url` for `seconds`. */
function runOrderLoad(url: string, dataFile: string, seconds: number, connections: number): Promise<LoadResult> {
  return runLoadScript(here("./orderLoad.ts"), url, {
    BENCH_TRADING_FILE: dataFile,
    BENCH_LOAD_SECONDS: String(seconds),
    BENCH_CONNECTIONS: String(connections),
  });
}

/** CPU seconds (user + system) of process `pid` so far (Linux). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Deletes every order (their commands go with them), so the next server starts without them. */
async function deleteOrders(driver: Driver): Promise<void> {
  const db = await openTradingDatabase(driver);
  try {
    await db.exec("DELETE FROM brokerage.orders");
    await db.exec("VACUUM ANALYZE brokerage.orders, brokerage.order_commands");
  } finally {
    await db.close();
  }
}

/** Places one resting order and polls it until the writer made it `new`; the ms that took. */
async function timeWriterCatchUp(origin: string, token: string): Promise<number> {
  const placer = orderPlacer(origin, 1);
  const started = performance.now();
  try {
    const body = { symbol: "AAPL", qty: "1", side: "buy", type: "limit", limit_price: "1", time_in_force: "gtc" };
    const placed = await placer.place(token, body);
    if (placed.status !== 200) throw new Error(`catch-up order refused: ${JSON.stringify(placed.body)}`);
    for (;;) {
      const response = await fetch(`${origin}/v2/orders/${placed.body.id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const order = (await response.json()) as { status: string };
      if (order.status !== "accepted") return Math.round(performance.now() - started);
      if (performance.now() - started > 120_000) throw new Error("the writer did not catch up within 120 s");
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    placer.close();
  }
}

/** The `orders` part on `driver` (the database of `data` freshly prepared). */
export async function ordersBenchmark(
  driver: Driver,
  data: TradingData,
  dataFile: string,
  o: { durationSec: number; connections: number },
): Promise<OrdersRow> {
  const env = { BENCH_DRIVER: driver, BENCH_TRADING_FILE: dataFile };
  const measure = async (script: string, extraEnv: Record<string, string>, what: string) => {
    const server = await startServerScript(here(script), { ...env, ...extraEnv });
    try {
      const started = performance.now();
      const warmup = await runOrderLoad(server.info.url as string, dataFile, 2, o.connections);
      const pid = Number(server.info.pid);
      const server0 = processCpuSeconds(pid);
      const meter = cpuMeter(["postgres"]);
      const load = await runOrderLoad(server.info.url as string, dataFile, o.durationSec, o.connections);
      const used = meter.read();
      const perRequest = (seconds: number) => Math.round((seconds * 1e6) / load.requests) / 1000;
      const serverSeconds = processCpuSeconds(pid) - server0;
      const cpu: CpuPerRequest = {
        serverMs: perRequest(serverSeconds),
        postgresMs: perRequest(used.postgres ?? 0),
        machineMs: perRequest(used.machine ?? 0),
        serverBusy: Math.round((serverSeconds / o.durationSec) * 100) / 100,
      };
      const result: OrderLoad = { ...load, cpu };
      assertCleanLoad(`${driver} ${what}`, result);
      if (extraEnv.BENCH_WRITER !== "on") return { result, caughtUp: 0, writerRate: 0 };
      const caughtUp = await timeWriterCatchUp(server.info.url as string, data.orderAccounts[0]?.token as string);
      // Every order placed since the warm-up began, over the time until the writer had executed them all.
      const writerRate = (warmup.requests + load.requests + 1) / ((performance.now() - started) / 1000);
      return { result, caughtUp, writerRate: Math.round(writerRate) };
    } finally {
      await server.stop();
    }
  };
  const baseline = (await measure("./orderBaselineServer.ts", {}, "baseline POST /v2/orders")).result;
  await deleteOrders(driver);
  const withoutWriter = (await measure("./tradingServer.ts", { BENCH_WRITER: "off" }, "POST /v2/orders, no writer"))
    .result;
  await deleteOrders(driver);
  const service = await measure("./tradingServer.ts", { BENCH_WRITER: "on" }, "POST /v2/orders");
  const ratio = (r: OrderLoad) => Math.round((r.rps / baseline.rps) * 1000) / 1000;
  return {
    driver,
    baseline,
    service: service.result,
    ratio: ratio(service.result),
    withoutWriter,
    ratioWithoutWriter: ratio(withoutWriter),
    writerCaughtUpMs: service.caughtUp,
    writerOrdersPerSec: service.writerRate,
  };
}
