/**
 * Brokerage benchmarks, on PGlite and on PostgreSQL (when the local server answers):
 * 1. `GET /v2/account` on the live host with a bearer token, as a ratio to a minimal Fastify route on the
 *    same database that reads the same account row by the token's hash with the service's statement (goal
 *    ≥ 80 %); and, for information, to one that runs the least SQL finding that row (token and account);
 * 2. the token endpoint's code exchanges per second (codes issued beforehand, each exchanged once);
 * 3. the exchange's matching rate in-process (`matching.ts`: orders/s, goal ≥ 200k, against a plain sorted array);
 * 4. trading through the live host with the exchange writer (`tradingParts.ts`): `orders` (placement against a
 *    minimal insert route, goal ≥ 70 %), `fillLatency` (POST → fill frame), `streamFanout` (1,000 listeners);
 * 5. market data on the data host (`dataParts.ts`): `dataFanout` (1,000 `/v2/iex` connections, feed → frame,
 *    against a bare `ws` server, goal ≥ 70 %), `barsRest` (a year of 1-minute bars over REST, against a bare route).
 * Usage: npm run bench brokerage   (BENCH_DURATION=seconds, BENCH_EXCHANGES=codes, BENCH_DRIVERS=pglite,postgres,
 * BENCH_PARTS=account (1 and 2), matching, orders, fillLatency, streamFanout, dataFanout, barsRest;
 * BENCH_MATCHING_ORDERS, BENCH_MATCHING_DEPTH, BENCH_MATCHING_ROUNDS; the trading parts' knobs in
 * tradingParts.ts, the market data parts' in dataParts.ts)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertCleanLoad, type LoadResult, runLoad, runLoadScript, startServerScript } from "../lib/processes.ts";
import { writeResults } from "../lib/results.ts";
import { type Driver, postgresAvailable, prepareBenchData, REDIRECT_URI } from "./database.ts";
import { runDataParts } from "./dataParts.ts";
import { matchingBenchmark } from "./matching.ts";
import { runTradingParts } from "./tradingParts.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const exchanges = Number(process.env.BENCH_EXCHANGES ?? 10_000);
const CONNECTIONS = 32;

interface Row {
  driver: Driver;
  account: {
    baseline: LoadResult;
    service: LoadResult;
    ratio: number;
    /** The same against the `minimal` baseline (no revoked-client join). */
    minimalBaseline: LoadResult;
    ratioToMinimal: number;
  };
  exchange: LoadResult;
}

/** Runs `exchangeLoad.ts` in its own process (the load generator never shares the server's event loop). */
function runExchangeLoad(url: string, codesFile: string): Promise<LoadResult> {
  return runLoadScript(here("./exchangeLoad.ts"), url, {
    BENCH_CODES_FILE: codesFile,
    BENCH_CONNECTIONS: String(CONNECTIONS),
  });
}

const ratio = (service: LoadResult, baseline: LoadResult) => Math.round((service.rps / baseline.rps) * 1000) / 1000;

async function measure(driver: Driver): Promise<Row> {
  process.stdout.write(`brokerage bench: preparing a token and ${exchanges} codes on ${driver}...\n`);
  const data = await prepareBenchData(driver, exchanges);
  const dir = mkdtempSync(join(tmpdir(), "bench-brokerage-"));
  const codesFile = join(dir, "codes.json");
  writeFileSync(codesFile, JSON.stringify({ ...data, redirectUri: REDIRECT_URI }));
  const env = { BENCH_DRIVER: driver };
  const headers = { authorization: `Bearer ${data.accessToken}` };
  try {
    // One server process at a time: a PGlite folder has one owner, and the two must not share the CPU.
    const runBaseline = async (variant: "service" | "minimal") => {
      const server = await startServerScript(here("./baselineServer.ts"), { ...env, BENCH_BASELINE_SQL: variant });
      const url = `${server.info.url}/v2/account`;
      await runLoad(url, { durationSec: 2, headers, connections: CONNECTIONS });
      const result = await runLoad(url, { durationSec, headers, connections: CONNECTIONS });
      await server.stop();
      assertCleanLoad(`${driver} ${variant} baseline`, result);
      return result;
    };
    const baseline = await runBaseline("service");
    const minimalBaseline = await runBaseline("minimal");

    const serviceServer = await startServerScript(here("./serviceServer.ts"), env);
    const serviceUrl = `${serviceServer.info.url}/v2/account`;
    await runLoad(serviceUrl, { durationSec: 2, headers, connections: CONNECTIONS });
    const service = await runLoad(serviceUrl, { durationSec, headers, connections: CONNECTIONS });
    const exchange = await runExchangeLoad(serviceServer.info.url as string, codesFile);
    await serviceServer.stop();

    assertCleanLoad(`${driver} GET /v2/account`, service);
    assertCleanLoad(`${driver} POST /oauth/token`, exchange);
    return {
      driver,
      account: {
        baseline,
        service,
        ratio: ratio(service, baseline),
        minimalBaseline,
        ratioToMinimal: ratio(service, minimalBaseline),
      },
      exchange,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// BENCH_PARTS selects parts: account (GET /v2/account and token exchanges), matching, orders, fillLatency, streamFanout,
// dataFanout, barsRest.
const parts = (process.env.BENCH_PARTS ?? "account,matching,orders,fillLatency,streamFanout,dataFanout,barsRest").split(
  ",",
);

if (parts.includes("account")) {
  const available: Driver[] = (await postgresAvailable()) ? ["pglite", "postgres"] : ["pglite"];
  const drivers = available.filter((d) => (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",").includes(d));
  const rows: Row[] = [];
  for (const driver of drivers) rows.push(await measure(driver));

  const file = writeResults("brokerage", { durationSec, connections: CONNECTIONS, exchanges, rows });
  for (const { driver, account, exchange } of rows) {
    process.stdout.write(
      `${driver.padEnd(8)} GET /v2/account (bearer)  service ${String(account.service.rps).padStart(6)} req/s ` +
        `(p50 ${account.service.p50} ms, p99 ${account.service.p99} ms)  baseline ${String(account.baseline.rps).padStart(6)} req/s ` +
        `(p50 ${account.baseline.p50} ms, p99 ${account.baseline.p99} ms)  ratio ${(account.ratio * 100).toFixed(1)} %\n` +
        `${driver.padEnd(8)}   minimal SQL baseline ${String(account.minimalBaseline.rps).padStart(6)} req/s ` +
        `(p50 ${account.minimalBaseline.p50} ms, p99 ${account.minimalBaseline.p99} ms)  ratio ${(account.ratioToMinimal * 100).toFixed(1)} %\n` +
        `${driver.padEnd(8)} POST /oauth/token         ${String(exchange.rps).padStart(6)} exchanges/s ` +
        `(p50 ${exchange.p50} ms, p99 ${exchange.p99} ms, ${exchange.requests} codes)\n`,
    );
  }
  process.stdout.write(`written ${file}\n`);
}

if (parts.includes("matching")) {
  process.stdout.write("brokerage bench: matching a pre-generated order flow in-process...\n");
  const matching = matchingBenchmark();
  const file = writeResults("brokerage", { matching });
  const { mixed, baseline, full } = matching;
  process.stdout.write(
    `matching mixed (limit/market/cancel)  ${String(mixed.ordersPerSec).padStart(8)} orders/s (${mixed.fills} fills, ` +
      `${mixed.restingAtEnd} resting at the end)  sorted-array baseline ${String(baseline.ordersPerSec).padStart(8)} orders/s ` +
      `(${baseline.fills} fills)  ratio ${(matching.ratio * 100).toFixed(1)} %  goal ≥ 200000: ${mixed.ordersPerSec >= 200_000 ? "met" : "NOT met"}\n` +
      `matching full (+stops, replaces, expiry, market maker requoting) ${String(full.ordersPerSec).padStart(8)} orders/s ` +
      `(${full.events} events)  [${matching.commands} commands, ${matching.depth} resting at start, median of ${matching.rounds}]\n` +
      `written ${file}\n`,
  );
}

await runTradingParts(parts);
await runDataParts(parts);
