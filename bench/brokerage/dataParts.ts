/**
 * The market data parts of the brokerage benchmark, on PGlite and on PostgreSQL (when the local server answers;
 * `BENCH_DRIVERS` chooses), like the trading parts: for each driver a fresh trading database with the users of
 * the parts (`tradingDatabase.ts`: one OAuth token of scopes `trading data` each, their data stream connection
 * limit raised so that `BENCH_DATA_CONNECTIONS` spread over them fit), then the parts selected:
 * - `dataFanout` (`dataFanout.ts`): 1,000 `/v2/iex` connections subscribed to the same symbols, messages
 *   written into `brokerage.market_feed` at a fixed rate, against a bare `ws` server sending the same frames
 *   (goal ≥ 70 % of its delivered rate);
 * - `barsRest` (`barsRest.ts`): a year of 1-minute bars read over REST by pages, and 1Day/1Week over the year,
 *   against a bare Fastify route running the same keyset page.
 * Knobs: BENCH_DURATION (s of offered messages per rate, default 10), BENCH_DATA_CONNECTIONS (1000),
 * BENCH_DATA_USERS (100), BENCH_DATA_SYMBOLS (AAPL,MSFT,NVDA,AMD), BENCH_DATA_RATE (messages/s, 200),
 * BENCH_DATA_TICK_MS (one feed transaction, or one baseline frame, a tick: 20), BENCH_DATA_SATURATING_RATE
 * (messages/s, 5000; 0 skips it), BENCH_DATA_SATURATING_TICK_MS (5), BENCH_BARS_ROUNDS (full-year 1Min reads, 3), BENCH_BARS_REPEATS (1Day and 1Week requests, 20).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "../lib/benchDatabase.ts";
import type { LatencySummary } from "../lib/latency.ts";
import { writeResults } from "../lib/results.ts";
import { BARS_SYMBOL, type BarsRestResult, type BarsYear, barsRestBenchmark, insertYearOfBars } from "./barsRest.ts";
import { type DataFanoutResult, type DataFanoutSide, dataFanoutBenchmark } from "./dataFanout.ts";
import { freshTradingDatabase, openTradingDatabase, prepareTradingData } from "./tradingDatabase.ts";

export const DATA_PARTS = ["dataFanout", "barsRest"] as const;

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const durationSec = knob("BENCH_DURATION", 10);
const connections = knob("BENCH_DATA_CONNECTIONS", 1000);
const users = knob("BENCH_DATA_USERS", 100);
const symbols = (process.env.BENCH_DATA_SYMBOLS ?? "AAPL,MSFT,NVDA,AMD").split(",");
const ratePerSec = knob("BENCH_DATA_RATE", 200);
const tickMs = knob("BENCH_DATA_TICK_MS", 20);
const saturatingRate = knob("BENCH_DATA_SATURATING_RATE", 5000);
const saturatingTickMs = knob("BENCH_DATA_SATURATING_TICK_MS", 5);
const barsRounds = knob("BENCH_BARS_ROUNDS", 3);
const barsRepeats = knob("BENCH_BARS_REPEATS", 20);

const ms = (s: LatencySummary) => `p50 ${s.p50} ms, p99 ${s.p99} ms`;
const pct = (r: number) => `${(r * 100).toFixed(1)} %`;

/** Raises the users' stream connection limit and stores the bars year (barsRest); returns the year. */
async function prepareMarketData(driver: Driver, withBars: boolean): Promise<BarsYear | undefined> {
  const db = await openTradingDatabase(driver);
  try {
    await db.query("UPDATE brokerage.users SET data_stream_connections = $1", [Math.ceil(connections / users)]);
    const year = withBars ? await insertYearOfBars(db, BARS_SYMBOL, new Date()) : undefined;
    await db.exec("ANALYZE");
    return year;
  } finally {
    await db.close();
  }
}

function sideLines(driver: string, name: string, side: DataFanoutSide): string {
  const lines = [
    `${driver.padEnd(8)}   ${name.padEnd(8)} connect ${side.connectSec} s, RSS ${side.rssMiB.before} → ${side.rssMiB.subscribed} MiB ` +
      `(${side.rssMiB.perConnectionKiB} KiB a connection), ${side.rssMiB.after} MiB at the end`,
  ];
  for (const { kind, ratePerSec: rate, tickMs: tick, perTick, injection, delivery: d } of side.runs) {
    lines.push(
      `${driver.padEnd(8)}   ${name.padEnd(8)} ${kind.padEnd(10)} ${rate} msg/s (${perTick} every ${tick} ms; ticks late p50 ` +
        `${injection.lateMs.p50} ms, max ${injection.lateMs.max} ms): ${d.delivered}/${d.expected} delivered, ` +
        `${d.misordered} out of order, ${d.errors} errors, ${d.closed} closed; ${d.framesPerSec} frames/s, ` +
        `${d.messagesPerSec} msg/s over ${d.windowSec} s; injection → client ${ms(d.perClient)}; → last client ${ms(d.toLastClient)}`,
    );
  }
  return lines.join("\n");
}

function print(fanouts: (DataFanoutResult & { driver: Driver })[], bars: (BarsRestResult & { driver: Driver })[]) {
  for (const r of fanouts) {
    const out = [
      `${r.driver.padEnd(8)} data fan-out ${r.connections} connections / ${r.users} users, ${r.symbols.join(",")} trades+quotes, ${r.durationSec} s a rate`,
    ];
    out.push(sideLines(r.driver, "service", r.service), sideLines(r.driver, "baseline", r.baseline));
    for (const x of r.ratios) {
      out.push(
        `${r.driver.padEnd(8)}   ratio ${x.kind.padEnd(10)} frames/s ${pct(x.framesPerSec)}, messages/s ${pct(x.messagesPerSec)} ` +
          `(goal ≥ 70 %: ${x.messagesPerSec >= 0.7 ? "met" : "NOT met"}); p50 ${x.p50.service} vs ${x.p50.baseline} ms, ` +
          `p99 ${x.p99.service} vs ${x.p99.baseline} ms`,
      );
    }
    process.stdout.write(`${out.join("\n")}\n`);
  }
  for (const r of bars) {
    const side = (name: string, s: BarsRestResult["service"]) =>
      `${r.driver.padEnd(8)}   ${name.padEnd(8)} 1Min pages of 10,000 ${ms(s.minutePages)} (${s.minutePages.count} pages), ` +
      `whole year ${s.yearSec.join(" / ")} s (${s.barsAYear} bars); 1Day ${ms(s.day)} (${s.counts.day} bars); 1Week ${ms(s.week)} (${s.counts.week} bars)`;
    process.stdout.write(
      `${r.driver.padEnd(8)} bars REST, a year of 1Min bars of ${r.symbol}\n${side("service", r.service)}\n${side("baseline", r.baseline)}\n`,
    );
  }
}

/** Runs the selected market data parts on every available driver, prints them and writes them to the results. */
export async function runDataParts(parts: readonly string[]): Promise<void> {
  const selected = DATA_PARTS.filter((p) => parts.includes(p));
  if (selected.length === 0) return;
  const wanted = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",") as Driver[];
  const fanouts: (DataFanoutResult & { driver: Driver })[] = [];
  const bars: (BarsRestResult & { driver: Driver })[] = [];
  for (const driver of (["pglite", "postgres"] as const).filter((d) => wanted.includes(d))) {
    if (!(await freshTradingDatabase(driver))) {
      process.stdout.write(`brokerage bench: no PostgreSQL server answers; market data parts on ${driver} skipped\n`);
      continue;
    }
    process.stdout.write(`brokerage bench: preparing ${users} users for the market data parts on ${driver}...\n`);
    const data = await prepareTradingData(driver, { orderAccounts: 0, fanoutAccounts: users });
    const tokens = data.fanoutAccounts.map((a) => a.token);
    const year = await prepareMarketData(driver, selected.includes("barsRest"));
    const dir = mkdtempSync(join(tmpdir(), "bench-brokerage-data-"));
    try {
      if (selected.includes("dataFanout")) {
        process.stdout.write(`brokerage bench: data fan-out on ${driver}...\n`);
        const result = await dataFanoutBenchmark({
          driver,
          tokens,
          connections,
          symbols,
          durationSec,
          offered: { ratePerSec, tickMs },
          saturating: { ratePerSec: saturatingRate, tickMs: saturatingTickMs },
          planFile: join(dir, "plan.json"),
        });
        fanouts.push({ driver, ...result });
      }
      if (year) {
        process.stdout.write(`brokerage bench: bars REST on ${driver}...\n`);
        const token = tokens[0] as string;
        bars.push({
          driver,
          ...(await barsRestBenchmark({ driver, token, year, rounds: barsRounds, repeats: barsRepeats })),
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const file = writeResults("brokerage", {
    ...(selected.includes("dataFanout")
      ? {
          dataFanout: {
            ratePerSec,
            saturatingRate,
            goal: "service ≥ 70 % of the baseline's delivered messages/s",
            rows: fanouts,
          },
        }
      : {}),
    ...(selected.includes("barsRest") ? { barsRest: { rows: bars } } : {}),
  });
  print(fanouts, bars);
  process.stdout.write(`written ${file}\n`);
}
