import { createLeases, createLogger, type Database, LeaseLostError, type Queryable } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type MarketTrade, tradeOfExecution } from "../domain/marketRecords.ts";
import { DEFAULT_LISTINGS } from "../market/assetListings.ts";
import { AssetUniverse } from "../market/assets.ts";
import { PriceProcess } from "../market/priceProcess.ts";
import { FAKEPACA_LISTING } from "../market/testFeed.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { recordExchangeTrades } from "./exchangePrints.ts";
import { createMarketRecorder, MARKET_RECORDER_LEASE } from "./marketRecorder.ts";

const SEED = "recorder-test";
const logger = createLogger({ level: "silent" });
const LISTINGS = [
  ...DEFAULT_LISTINGS.filter((l) => ["AAPL", "SPY", "BTC/USD"].includes(l.asset.symbol)),
  FAKEPACA_LISTING,
];
/** 2026-03-10 14:30:00.400 UTC (10:30 New York): mid-session, mid-minute. */
const START = Date.UTC(2026, 2, 10, 14, 30, 0, 400);

let database: TestDatabase;
beforeEach(async () => {
  database = await createBrokerageTestDatabase();
});
afterEach(async () => {
  await database.drop();
});

function recorderAt(clock: { now: number }, db: Database = database.db, backfillDays = 0) {
  return createMarketRecorder({
    db,
    seed: SEED,
    listings: LISTINGS,
    logger,
    backfillDays,
    retentionDays: 7,
    now: () => clock.now,
  });
}

/** Runs the recorder as its loop does: a pass every second up to `to`. */
async function liveUntil(recorder: ReturnType<typeof recorderAt>, clock: { now: number }, to: number): Promise<void> {
  while (clock.now < to) {
    clock.now = Math.min(to, clock.now + 1_000);
    await catchUp(recorder);
  }
}

async function catchUp(recorder: ReturnType<typeof recorderAt>): Promise<number> {
  let passes = 0;
  while (await recorder.recordNext()) passes++;
  return passes + 1;
}

/** Every stored 1Min bar against an aggregate of the stored trades of its minute. */
async function barsMatchTrades(db: Queryable): Promise<void> {
  const rows = await db.query<Record<string, string>>(
    `WITH agg AS (
       SELECT symbol, date_trunc('minute', at) AS t, count(*)::text AS n, sum(size)::text AS v, max(price)::text AS h,
         min(price)::text AS l, (array_agg(price ORDER BY at, id))[1]::text AS o,
         (array_agg(price ORDER BY at DESC, id DESC))[1]::text AS c, sum(price * size)::text AS notional
       FROM brokerage.market_trades GROUP BY 1, 2)
     SELECT a.symbol, a.n, b.trade_count::text AS bn, a.v, b.volume::text AS bv, a.h, b.high::text AS bh, a.l,
       b.low::text AS bl, a.o, b.open::text AS bo, a.c, b.close::text AS bc, a.notional, b.notional::text AS bnotional
     FROM agg a LEFT JOIN brokerage.market_bars b ON b.symbol = a.symbol AND b.timeframe = '1Min' AND b.t = a.t`,
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(Number(r.bn)).toBe(Number(r.n));
    for (const [x, y] of [
      ["v", "bv"],
      ["h", "bh"],
      ["l", "bl"],
      ["o", "bo"],
      ["c", "bc"],
      ["notional", "bnotional"],
    ] as const) {
      expect(Number(r[y]), `${r.symbol} ${x}`).toBeCloseTo(Number(r[x]), 9);
    }
  }
}

describe("market recorder", () => {
  it("records the tape's prints and a quote a second for every listing, and bars that match the trades", async () => {
    const clock = { now: START };
    const recorder = recorderAt(clock);
    await catchUp(recorder); // first start: the checkpoint at the minute's start
    clock.now = START + 150_000; // two and a half minutes later
    await catchUp(recorder);

    const from = Date.UTC(2026, 2, 10, 14, 30);
    const to = Math.floor((clock.now - 1_000) / 1_000) * 1_000;
    const process = new PriceProcess({ seed: SEED, universe: new AssetUniverse(LISTINGS) });
    for (const listing of LISTINGS) {
      const symbol = listing.asset.symbol;
      const expected = process.tradesBetween(symbol, from, to);
      const stored = await database.db.query<{ id: string; price: string; size: string }>(
        "SELECT id::text, price::text, size::text FROM brokerage.market_trades WHERE symbol = $1 ORDER BY at, id",
        [symbol],
      );
      expect(stored.map((t) => Number(t.id))).toEqual(expected.map((p) => p.id));
      expect(stored.map((t) => Number(t.price))).toEqual(expected.map((p) => p.price));
      const [quotes] = await database.db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM brokerage.market_quotes WHERE symbol = $1",
        [symbol],
      );
      expect(Number(quotes?.n)).toBe((to - from) / 1_000);
    }
    await barsMatchTrades(database.db);
    const [hour] = await database.db.query<{ n: string; v: string }>(
      "SELECT trade_count::text AS n, volume::text AS v FROM brokerage.market_bars WHERE symbol = 'AAPL' AND timeframe = '1Hour'",
    );
    const [minutes] = await database.db.query<{ n: string; v: string }>(
      "SELECT sum(trade_count)::text AS n, sum(volume)::text AS v FROM brokerage.market_bars WHERE symbol = 'AAPL' AND timeframe = '1Min'",
    );
    expect(hour).toEqual(minutes);
  });

  it("redoes a pass that died at any statement, with the same result as an uninterrupted run", async () => {
    const clean = await createBrokerageTestDatabase();
    try {
      const clock = { now: START };
      const reference = recorderAt(clock, clean.db);
      await catchUp(reference);
      clock.now = START + 65_000;
      await catchUp(reference);

      // Every statement of a pass in turn fails (a kill there); the pass after it finds the work undone.
      let failAt = 0;
      let statements = 0;
      let kills = 0;
      const dying: Database = {
        ...database.db,
        transaction: (fn) =>
          database.db.transaction((tx) =>
            fn({
              ...tx,
              query: (text, params) => {
                if (++statements === failAt) {
                  kills++;
                  throw new Error("killed");
                }
                return tx.query(text, params);
              },
            }),
          ),
      };
      const victimClock = { now: START };
      const victim = recorderAt(victimClock, dying);
      await catchUp(victim);
      victimClock.now = START + 65_000;
      for (let attempt = 0; attempt < 40; attempt++) {
        statements = 0;
        failAt = attempt + 1;
        const more = await victim.recordNext().catch(() => true);
        if (!more && statements < failAt) break;
      }
      failAt = 0;
      await catchUp(victim);
      expect(kills).toBeGreaterThanOrEqual(6); // every statement of the first pass

      const snapshot = (db: Queryable) =>
        db.query(
          `SELECT (SELECT count(*) FROM brokerage.market_trades)::text AS trades,
             (SELECT count(*) FROM brokerage.market_quotes)::text AS quotes,
             (SELECT string_agg(symbol || t::text || volume::text || trade_count::text || open::text || close::text, ','
               ORDER BY symbol, timeframe, t) FROM brokerage.market_bars) AS bars,
             (SELECT count(*) FROM brokerage.market_feed)::text AS feed`,
        );
      expect(await snapshot(database.db)).toEqual(await snapshot(clean.db));
    } finally {
      await clean.drop();
    }
  });

  it("feeds the streams: trades and quotes as they are recorded, then each ended minute's bar and the day's", async () => {
    const clock = { now: START };
    const recorder = recorderAt(clock);
    await catchUp(recorder);
    await liveUntil(recorder, clock, START + 61_000); // 14:31:01.400: the 14:30 minute has ended
    const feed = await database.db.query<{ channel: string; symbol: string; message: Record<string, unknown> }>(
      "SELECT channel, symbol, message FROM brokerage.market_feed ORDER BY seq",
    );
    const channels = new Set(feed.map((f) => f.channel));
    expect([...channels].sort()).toEqual(["bars", "dailyBars", "quotes", "trades"]);
    const bar = feed.find((f) => f.channel === "bars" && f.symbol === "AAPL")?.message;
    expect(bar).toMatchObject({ T: "b", S: "AAPL", t: "2026-03-10T14:30:00.000Z" });
    const [stored] = await database.db.query<{ volume: string; trade_count: number }>(
      "SELECT volume::text, trade_count FROM brokerage.market_bars WHERE symbol = 'AAPL' AND timeframe = '1Min'",
    );
    expect(bar?.n).toBe(stored?.trade_count);
    expect(bar?.v).toBe(Number(stored?.volume));
    const crypto = feed.find((f) => f.channel === "trades" && f.symbol === "BTC/USD")?.message;
    expect(Object.keys(crypto ?? {}).sort()).toEqual(["S", "T", "i", "p", "s", "t", "tks"]);
    const equity = feed.find((f) => f.channel === "quotes" && f.symbol === "AAPL")?.message;
    expect(equity).toMatchObject({ T: "q", bx: "V", ax: "V", c: ["R"], z: "C" });
    expect(feed.find((f) => f.channel === "dailyBars" && f.symbol === "AAPL")?.message).toMatchObject({
      T: "d",
      t: "2026-03-10T04:00:00.000Z", // midnight in New York (EDT from March 8)
    });
  });

  it("records an execution of the live books in a closed minute as a trade and an updated bar", async () => {
    const clock = { now: START };
    const recorder = recorderAt(clock);
    await catchUp(recorder);
    clock.now = START + 61_000;
    await catchUp(recorder);
    const aapl = LISTINGS[0];
    if (aapl?.asset.symbol !== "AAPL") throw new Error("AAPL first");
    const late: MarketTrade = tradeOfExecution(
      { sequence: 7, at: Date.UTC(2026, 2, 10, 14, 30, 59, 900), price: 1, size: 5, takerSide: "buy" },
      aapl,
    ) as MarketTrade;
    await database.db.transaction((tx) => recordExchangeTrades(tx, [late], () => false));
    // Replayed (a retried commit): nothing twice.
    await database.db.transaction((tx) => recordExchangeTrades(tx, [late], () => false));
    const updates = await database.db.query<{ message: Record<string, unknown> }>(
      "SELECT message FROM brokerage.market_feed WHERE channel = 'updatedBars'",
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]?.message).toMatchObject({ T: "u", S: "AAPL", l: 1, t: "2026-03-10T14:30:00.000Z" });
    const [count] = await database.db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM brokerage.market_trades WHERE id = $1",
      [String(late.id)],
    );
    expect(count?.n).toBe("1");
    await barsMatchTrades(database.db);
  });

  it("records the days before its first start as bars only, after the present, and trades from the start on", async () => {
    const clock = { now: START };
    const recorder = recorderAt(clock, database.db, 1);
    expect(await recorder.recordNext()).toBe(true); // the tape is up to date at once; a first history pass
    expect(recorder.status().history).toEqual({
      recordedTo: new Date(START - 400 - 86_400_000 + 5 * 60_000).toISOString(),
      endsAt: new Date(START - 400).toISOString(),
    });
    const passes = await catchUp(recorder);
    expect(passes).toBe(24 * 12 - 1);
    const [first] = await database.db.query<{ t: Date; n: string }>(
      "SELECT min(t) AS t, count(*)::text AS n FROM brokerage.market_bars WHERE timeframe = '1Min' AND symbol = 'BTC/USD'",
    );
    expect(first?.t.getTime()).toBe(START - 400 - 86_400_000);
    expect(Number(first?.n)).toBeGreaterThan(1_400); // 20 prints a minute: nearly every minute has a bar
    const [trades] = await database.db.query<{ n: string }>("SELECT count(*)::text AS n FROM brokerage.market_trades");
    expect(trades?.n).toBe("0");
    await liveUntil(recorder, clock, START + 5_000);
    const [since] = await database.db.query<{ t: Date }>("SELECT min(at) AS t FROM brokerage.market_trades");
    expect(since?.t.getTime()).toBeGreaterThanOrEqual(START - 400);
    expect(recorder.status().behindMs).toBeLessThan(2_000);
  }, 60_000);

  it("records on the lease holder only; a pass under a lease taken over commits nothing", async () => {
    const clock = { now: START };
    const checkpoint = async () =>
      (
        await database.db.query<{ recorded_to: Date }>(
          "SELECT recorded_to FROM brokerage.market_recorder WHERE name = 'tape'",
        )
      )[0]?.recorded_to.getTime();
    const recorders = ["a", "b"].map((holder) =>
      createMarketRecorder({
        db: database.db,
        seed: SEED,
        listings: LISTINGS,
        logger,
        backfillDays: 0,
        retentionDays: 7,
        now: () => clock.now,
        holder,
      }),
    );
    try {
      for (const r of recorders) r.start();
      await expect.poll(() => recorders.filter((r) => r.holding()).length, { timeout: 20_000 }).toBe(1);
      await expect.poll(checkpoint, { timeout: 20_000 }).toBeDefined();
      const [lease] = await database.db.query<{ holder: string }>(
        "SELECT holder FROM platform.leases WHERE name = $1",
        [MARKET_RECORDER_LEASE],
      );
      expect(lease?.holder).toBe(recorders[0]?.holding() ? "a" : "b");
    } finally {
      for (const r of recorders) await r.stop();
    }

    // A stalled holder (token t) whose lease expired and was taken (token t + 1): its pass is refused whole.
    const leases = createLeases({ db: database.db });
    const old = await leases.acquire({ name: MARKET_RECORDER_LEASE, holder: "stalled", ttlMs: 1 });
    await expect
      .poll(async () => (await leases.list()).find((l) => l.name === MARKET_RECORDER_LEASE)?.held)
      .toBe(false);
    await leases.acquire({ name: MARKET_RECORDER_LEASE, holder: "other", ttlMs: 60_000 });
    const before = await checkpoint();
    clock.now = START + 10_000;
    const stalled = recorderAt(clock);
    await expect(stalled.recordNext(old)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await checkpoint()).toBe(before);
  });
});
