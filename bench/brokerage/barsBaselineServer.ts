/**
 * The `barsRest` baseline: a bare Fastify route `GET /v2/stocks/:symbol/bars` on the trading benchmarks'
 * database (the driver directly, no service code, no authentication) that runs the service's own keyset page
 * (`createMarketDataReadRepository(…).bars`: one range scan of the primary key after the last bucket, the rows
 * as one `json_agg` text) and answers the anchor's `{"bars":[…],"symbol","next_page_token"}`, the token being
 * the last bucket's epoch ms. `1Week` merges the year's `1Day` rows into Monday-aligned weeks in a plain loop.
 * Prints READY {url}.
 */
import Fastify from "fastify";
import type { BarValues } from "../../packages/brokerage/src/domain/barTimeframe.ts";
import { createMarketDataReadRepository } from "../../packages/brokerage/src/store/marketDataReadRepository.ts";
import { asQueryable, openBaselineDriver, serveBaseline } from "../lib/baselineServer.ts";
import { TRADING_PGLITE_DIR, tradingDatabaseUrl } from "./tradingDatabase.ts";

const DAY = 86_400_000;
const driver = await openBaselineDriver(tradingDatabaseUrl(), TRADING_PGLITE_DIR);
const reads = createMarketDataReadRepository(asQueryable(driver.query));

type Bar = BarValues;
type Query = { timeframe: string; start: string; end: string; limit?: string; page_token?: string };

const shape = (b: Bar) => ({
  t: new Date(b.t).toISOString(),
  o: b.o,
  h: b.h,
  l: b.l,
  c: b.c,
  v: b.v,
  n: b.n,
  vw: b.v === 0 ? 0 : b.notional / b.v,
});

/** Monday-aligned weeks of days (epoch day 0 was a Thursday). */
function weeks(days: Bar[]): Bar[] {
  const merged: Bar[] = [];
  for (const day of days) {
    const week = (Math.floor((Math.floor(day.t / DAY) + 3) / 7) * 7 - 3) * DAY;
    const last = merged.at(-1);
    if (last?.t !== week) {
      merged.push({ ...day, t: week });
      continue;
    }
    last.h = Math.max(last.h, day.h);
    last.l = Math.min(last.l, day.l);
    last.c = day.c;
    last.v += day.v;
    last.n += day.n;
    last.notional += day.notional;
  }
  return merged;
}

const app = Fastify();
app.get<{ Params: { symbol: string }; Querystring: Query }>("/v2/stocks/:symbol/bars", async (request) => {
  const { symbol } = request.params;
  const q = request.query;
  const limit = Number(q.limit ?? 1000);
  const range = { symbol, from: new Date(q.start), to: new Date(q.end), desc: false };
  if (q.timeframe === "1Week") {
    const days = await reads.bars({ ...range, timeframe: "1Day", limit: 10_000 });
    return { bars: weeks(days).slice(0, limit).map(shape), symbol, next_page_token: null };
  }
  const after = q.page_token === undefined ? undefined : Number(q.page_token);
  const timeframe = q.timeframe as "1Min" | "1Hour" | "1Day";
  const rows = await reads.bars({ ...range, timeframe, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? String((page.at(-1) as Bar).t) : null;
  return { bars: page.map(shape), symbol, next_page_token: next };
});
await serveBaseline(app, driver);
