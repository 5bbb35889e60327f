/**
 * Bars over REST (`barsRest`): a year of 1-minute bars of one symbol in `brokerage.market_bars` (525,600 rows
 * made by `generate_series`, with the matching 1Hour and 1Day rollups aggregated from them), then, one request
 * at a time with a bearer token of scope `data`: the whole year of `timeframe=1Min` by pages of 10,000
 * following `next_page_token` (`rounds` times), and `1Day` and `1Week` over the year (`repeats` times each).
 * Reported per kind: p50/p99 per request, and for 1Min the time for the whole year. The same against a bare
 * Fastify route running the same keyset page (`barsBaselineServer.ts`).
 */
import { fileURLToPath } from "node:url";
import type { Database } from "@platform/kernel";
import { type LatencySummary, summarize } from "../lib/latency.ts";
import { startServerScript } from "../lib/processes.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
export const BARS_SYMBOL = "AAPL";
const MINUTES_A_YEAR = 365 * 24 * 60;
const PAGE_LIMIT = 10_000;

/** The instants the stored year runs over (RFC 3339), the requests' `start` and `end`. */
export interface BarsYear {
  from: string;
  to: string;
}

/** One side's figures: per request (ms), and the whole year of 1Min pages (s) per round. */
export interface BarsRestSide {
  minutePages: LatencySummary;
  yearSec: number[];
  barsAYear: number;
  day: LatencySummary;
  week: LatencySummary;
  /** Bars in the 1Day and 1Week answers (the same on both sides, or one of them reads something else). */
  counts: { day: number; week: number };
}

export interface BarsRestResult {
  symbol: string;
  minuteBars: number;
  rounds: number;
  repeats: number;
  service: BarsRestSide;
  baseline: BarsRestSide;
}

/**
 * Inserts a year of 1Min bars of `symbol` up to `until` (a price that wanders smoothly with some noise, OHLC
 * consistent, volume and trade counts varied), then its 1Hour and 1Day rollups (New York days) from them.
 */
export async function insertYearOfBars(db: Database, symbol: string, until: Date): Promise<BarsYear> {
  const from = new Date(Math.floor(until.getTime() / 60_000) * 60_000 - MINUTES_A_YEAR * 60_000);
  await db.query(
    `INSERT INTO brokerage.market_bars (symbol, timeframe, t, open, high, low, close, volume, trade_count, notional,
       open_at, open_id, close_at, close_id)
     SELECT $1, '1Min', ts, o, greatest(o, c) + w, least(o, c) - w, c, v, 1 + v / 100, v * (o + c) / 2, ts, i, ts, i
     FROM generate_series(0, $3::int - 1) AS i,
       LATERAL (SELECT $2::timestamptz + i * interval '1 minute' AS ts,
         round((150 + 20 * sin(i / 20000.0) + 2 * sin(i / 300.0))::numeric, 2) AS o,
         round((150 + 20 * sin((i + 1) / 20000.0) + 2 * sin((i + 1) / 300.0))::numeric, 2) AS c,
         round((random() * 0.2)::numeric, 2) AS w,
         (100 + floor(random() * 2000))::int AS v) AS bar`,
    [symbol, from, MINUTES_A_YEAR],
  );
  for (const [timeframe, bucket] of [
    ["1Hour", "date_trunc('hour', t)"],
    ["1Day", "(date_trunc('day', t AT TIME ZONE 'America/New_York') AT TIME ZONE 'America/New_York')"],
  ]) {
    await db.query(
      `INSERT INTO brokerage.market_bars (symbol, timeframe, t, open, high, low, close, volume, trade_count,
         notional, open_at, open_id, close_at, close_id)
       SELECT symbol, $2, ${bucket} AS bucket, (array_agg(open ORDER BY t))[1], max(high), min(low),
         (array_agg(close ORDER BY t DESC))[1], sum(volume), sum(trade_count), sum(notional), min(open_at),
         min(open_id), max(close_at), max(close_id)
       FROM brokerage.market_bars WHERE symbol = $1 AND timeframe = '1Min' GROUP BY symbol, bucket`,
      [symbol, timeframe],
    );
  }
  return { from: from.toISOString(), to: until.toISOString() };
}

async function timedGet(url: string, token: string): Promise<{ ms: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as Record<string, unknown>;
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

/** The loads of the part against `origin`. */
async function measureSide(origin: string, token: string, o: { year: BarsYear; rounds: number; repeats: number }) {
  const base = `${origin}/v2/stocks/${BARS_SYMBOL}/bars?start=${o.year.from}&end=${o.year.to}`;
  const pages: number[] = [];
  const yearSec: number[] = [];
  let barsAYear = 0;
  // One warm-up round (its figures dropped), then the measured ones.
  for (let round = 0; round <= o.rounds; round++) {
    const roundStart = performance.now();
    const times: number[] = [];
    let count = 0;
    let next: string | null = null;
    do {
      const pageToken: string = next === null ? "" : `&page_token=${encodeURIComponent(next)}`;
      const { ms, body } = await timedGet(`${base}&timeframe=1Min&limit=${PAGE_LIMIT}${pageToken}`, token);
      times.push(ms);
      count += (body.bars as unknown[]).length;
      next = body.next_page_token as string | null;
    } while (next);
    if (round === 0) continue;
    pages.push(...times);
    yearSec.push(Math.round(performance.now() - roundStart) / 1000);
    barsAYear = count;
  }
  const counts = { day: 0, week: 0 };
  const repeated = async (timeframe: "1Day" | "1Week") => {
    const times: number[] = [];
    for (let k = 0; k <= o.repeats; k++) {
      const { ms, body } = await timedGet(`${base}&timeframe=${timeframe}&limit=${PAGE_LIMIT}`, token);
      counts[timeframe === "1Day" ? "day" : "week"] = (body.bars as unknown[]).length;
      if (k > 0) times.push(ms);
    }
    return summarize(times);
  };
  const day = await repeated("1Day");
  const week = await repeated("1Week");
  return { minutePages: summarize(pages), yearSec, barsAYear, day, week, counts };
}

/** Runs the service's data host, then the baseline, one at a time, on the prepared database. */
export async function barsRestBenchmark(o: {
  driver: "pglite" | "postgres";
  token: string;
  year: BarsYear;
  rounds: number;
  repeats: number;
}): Promise<BarsRestResult> {
  const env = { BENCH_DRIVER: o.driver };
  const sides: BarsRestSide[] = [];
  for (const script of ["./dataServer.ts", "./barsBaselineServer.ts"]) {
    const server = await startServerScript(here(script), env);
    try {
      sides.push(await measureSide(server.info.url as string, o.token, o));
    } finally {
      await server.stop();
    }
  }
  const [service, baseline] = sides as [BarsRestSide, BarsRestSide];
  return { symbol: BARS_SYMBOL, minuteBars: MINUTES_A_YEAR, rounds: o.rounds, repeats: o.repeats, service, baseline };
}
