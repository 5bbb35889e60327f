/**
 * The `timeseries` part: on the seeded database (`timeseriesDatabase.ts`), the real service (`serviceServer.ts`,
 * with an API key) and the bare route running the same SQL (`timeseriesBaselineServer.ts`), one process at a
 * time, each measured with:
 * - `day`: heart rate of a one-day window, `limit=100` (autocannon, `connections`: req/s, p50/p99);
 * - `yearHourFirst`: `resolution=1hour` over the year, the first page alone, `firstRepeats` times one at a time;
 * - `yearHourAll`: the same followed through every `next_cursor`, one request at a time (`rounds` times, after a
 *   warm-up round when `warmup`): p50/p99 per page, seconds for the whole year, buckets read (the same on both sides, or one of
 *   them reads something else).
 */
import { fileURLToPath } from "node:url";
import type { Driver } from "../lib/benchDatabase.ts";
import { type LatencySummary, summarize } from "../lib/latency.ts";
import { assertCleanLoad, type LoadResult, runLoad, startServerScript } from "../lib/processes.ts";
import { YEAR_END, YEAR_START } from "./timeseriesDatabase.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

export interface YearWalk {
  pages: LatencySummary;
  yearSec: number[];
  buckets: number;
}

export type FirstPages = LatencySummary & { rps: number };

export interface TimeseriesSide {
  day: LoadResult;
  yearHourFirst: FirstPages;
  yearHourAll: YearWalk;
}

export interface TimeseriesResult {
  /** autocannon connections of the one-day load. */
  connections: number;
  firstRepeats: number;
  rounds: number;
  durationSec: number;
  bucketLimit: number;
  service: TimeseriesSide;
  baseline: TimeseriesSide;
  /** service / baseline: req/s for the loads, whole-year seconds (baseline / service) for the walk. */
  ratios: { day: number; yearHourFirst: number; yearHourAll: number };
}

const DAY_FROM = new Date(Date.UTC(2025, 6, 1)).toISOString();
const DAY_TO = new Date(Date.UTC(2025, 6, 2)).toISOString();
const YEAR_FROM = new Date(YEAR_START).toISOString();
const YEAR_TO = new Date(YEAR_END).toISOString();

async function walkYear(
  url: string,
  headers: Record<string, string>,
  o: { rounds: number; warmup: boolean; service: boolean },
): Promise<YearWalk> {
  const { rounds, service } = o;
  const pages: number[] = [];
  const yearSec: number[] = [];
  let buckets = 0;
  for (let round = o.warmup ? 0 : 1; round <= rounds; round++) {
    const started = performance.now();
    const times: number[] = [];
    let count = 0;
    let next: string | null = null;
    do {
      const more: string =
        next === null ? "" : service ? `&cursor=${encodeURIComponent(next)}` : `&after=${encodeURIComponent(next)}`;
      const t0 = performance.now();
      const response = await fetch(`${url}${more}`, { headers });
      const body = (await response.json()) as {
        data: unknown[];
        next_cursor?: string | null;
        pagination?: { next_cursor: string | null };
      };
      times.push(performance.now() - t0);
      if (response.status !== 200) throw new Error(`GET ${url}${more}: ${response.status} ${JSON.stringify(body)}`);
      count += body.data.length;
      next = (service ? body.pagination?.next_cursor : body.next_cursor) ?? null;
    } while (next);
    if (round === 0) continue; // warm-up
    pages.push(...times);
    yearSec.push(Math.round(performance.now() - started) / 1000);
    buckets = count;
  }
  return { pages: summarize(pages), yearSec, buckets };
}

async function measureSide(
  origin: string,
  prefix: string,
  userId: string,
  headers: Record<string, string>,
  o: {
    connections: number;
    durationSec: number;
    rounds: number;
    warmup: boolean;
    firstRepeats: number;
    bucketLimit: number;
    service: boolean;
  },
): Promise<TimeseriesSide> {
  const base = `${origin}${prefix}/users/${userId}/timeseries?types=heart_rate`;
  const dayUrl = `${base}&start_time=${DAY_FROM}&end_time=${DAY_TO}&limit=100`;
  const yearUrl = `${base}&start_time=${YEAR_FROM}&end_time=${YEAR_TO}&resolution=1hour&limit=${o.bucketLimit}`;
  const load = async (what: string, url: string, connections: number) => {
    await runLoad(url, { connections, durationSec: 2, headers }); // warm-up
    const r = await runLoad(url, { connections, durationSec: o.durationSec, headers });
    assertCleanLoad(what, r);
    return r;
  };
  const day = await load("day", dayUrl, o.connections);
  const yearHourFirst = await firstPages(yearUrl, headers, o.firstRepeats);
  const yearHourAll = await walkYear(yearUrl, headers, o);
  return { day, yearHourFirst, yearHourAll };
}

/**
 * The year's first page `repeats` times, one at a time after one warm-up (a page can take seconds at 100M
 * samples: past autocannon's 10 s timeout under load); req/s is 1 / mean.
 */
async function firstPages(url: string, headers: Record<string, string>, repeats: number): Promise<FirstPages> {
  const times: number[] = [];
  for (let k = 0; k <= repeats; k++) {
    const t0 = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
    if (k > 0) times.push(performance.now() - t0);
  }
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { ...summarize(times), rps: Math.round((1000 / mean) * 100) / 100 };
}

const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Runs the baseline, then the service, on the prepared database of `driver`. */
export async function timeseriesBenchmark(o: {
  driver: Driver;
  userId: string;
  connections: number;
  firstRepeats: number;
  durationSec: number;
  rounds: number;
  warmup: boolean;
  bucketLimit: number;
}): Promise<TimeseriesResult> {
  const env = { BENCH_DRIVER: o.driver, BENCH_DB: "wearables_timeseries" };
  const baselineServer = await startServerScript(here("./timeseriesBaselineServer.ts"), env);
  let baseline: TimeseriesSide;
  try {
    baseline = await measureSide(baselineServer.info.url as string, "", o.userId, {}, { ...o, service: false });
  } finally {
    await baselineServer.stop();
  }
  const serviceServer = await startServerScript(here("./serviceServer.ts"), env);
  let service: TimeseriesSide;
  try {
    const headers = { "X-Service-API-Key": serviceServer.info.key as string };
    service = await measureSide(serviceServer.info.url as string, "/api/v1", o.userId, headers, {
      ...o,
      service: true,
    });
  } finally {
    await serviceServer.stop();
  }
  if (service.yearHourAll.buckets !== baseline.yearHourAll.buckets)
    throw new Error(
      `the year by the hour: service ${service.yearHourAll.buckets} buckets, baseline ${baseline.yearHourAll.buckets}`,
    );
  return {
    connections: o.connections,
    firstRepeats: o.firstRepeats,
    rounds: o.rounds,
    durationSec: o.durationSec,
    bucketLimit: o.bucketLimit,
    service,
    baseline,
    ratios: {
      day: ratio(service.day.rps, baseline.day.rps),
      yearHourFirst: ratio(service.yearHourFirst.rps, baseline.yearHourFirst.rps),
      yearHourAll: ratio(median(baseline.yearHourAll.yearSec), median(service.yearHourAll.yearSec)),
    },
  };
}
