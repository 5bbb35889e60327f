/**
 * `GET /v2/account/portfolio/history` over HTTP from equity snapshots written as the snapshot job writes them
 * (daily closes for five weeks, then every five minutes this morning), the clock pinned: the anchor's
 * default month of days, intraday timeframes, `start`/`end` and `date_end` ranges, windows before the first
 * snapshot left out, an account without snapshots, the parameters accepted and ignored, every bad one a
 * 422 with the anchor's code, and the official client (4.0.2).
 */
import { trading } from "@alpacahq/alpaca-trade-api";
import type { Queryable } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPortfolioHistoryService } from "../../services/portfolioHistory.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { createEquitySnapshotsRepository } from "../../store/equitySnapshotsRepository.ts";
import { accountsOf } from "../../testing/oauthFixture.ts";
import { startTradingTestHosts, type TradingTestHosts } from "../../testing/tradingTestHosts.ts";
import { registerPortfolioHistoryRoutes } from "./portfolioHistory.ts";

/** Tuesday 2026-03-10, 11:07:30 New York (EDT since Sunday). */
const NOW = Date.parse("2026-03-10T15:07:30Z");
const DAY = 86_400_000;
const MINUTE = 60_000;
/** Daily snapshots at 21:00Z from 2026-02-01 to 2026-03-09 (equity 100000 + 10 × day index). */
const FIRST_DAILY = Date.parse("2026-02-01T21:00:00Z");
const DAILY_COUNT = 37;
/** This morning: every 5 minutes from 14:30Z to 15:05Z (equity 101000 + 5 × index). */
const FIRST_INTRADAY = Date.parse("2026-03-10T14:30:00Z");

let hosts: TradingTestHosts;
let db: Queryable;
let paper: AccountRow;
let token: string;
let emptyToken: string;

async function insertSnapshots(accountId: string, points: [number, string][]) {
  await db.query(
    `INSERT INTO brokerage.equity_snapshots (account_id, at, equity, cash)
     SELECT $1, p.at, p.equity, p.equity FROM unnest($2::timestamptz[], $3::numeric[]) AS p (at, equity)`,
    [accountId, points.map(([at]) => new Date(at).toISOString()), points.map(([, equity]) => equity)],
  );
}

beforeAll(async () => {
  hosts = await startTradingTestHosts((api, _env, fixture) => {
    const equitySnapshots = createEquitySnapshotsRepository(fixture.database.db);
    registerPortfolioHistoryRoutes(api, {
      portfolioHistory: createPortfolioHistoryService({ equitySnapshots, now: () => NOW }),
    });
  });
  db = hosts.fixture.database.db;
  const user = await hosts.fixture.createUser(2);
  const [first, second] = accountsOf(user).paper;
  paper = first;
  token = await hosts.token(user.id, { paper });
  emptyToken = await hosts.token(user.id, { paper: second });
  await insertSnapshots(paper.id, [
    ...Array.from(
      { length: DAILY_COUNT },
      (_, i) => [FIRST_DAILY + i * DAY, String(100_000 + 10 * i)] as [number, string],
    ),
    ...Array.from(
      { length: 8 },
      (_, i) => [FIRST_INTRADAY + i * 5 * MINUTE, String(101_000 + 5 * i)] as [number, string],
    ),
  ]);
});
afterAll(() => hosts?.close());

interface History {
  timestamp: number[];
  equity: number[];
  profit_loss: number[];
  profit_loss_pct: number[];
  base_value: number;
  timeframe: string;
  cashflow: object;
  base_value_asof?: string;
}

async function history(query: string, bearer = token): Promise<History> {
  const response = await fetch(`${hosts.origin.paper}/v2/account/portfolio/history${query}`, {
    headers: { Authorization: `Bearer ${bearer}` },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe("GET /v2/account/portfolio/history", () => {
  it("answers a month of New York days by default, each the equity at the day's end", async () => {
    const h = await history("");
    expect(h.timeframe).toBe("1D");
    expect(h.timestamp.length).toBe(29); // Feb 10 … Mar 10
    expect(h.timestamp[0]).toBe(seconds("2026-02-10T05:00:00Z"));
    expect(h.timestamp.at(-1)).toBe(seconds("2026-03-10T04:00:00Z")); // midnight EDT
    // Feb 10 is the 10th daily snapshot (index 9); today ends with this morning's last snapshot.
    expect(h.equity.slice(0, 3)).toEqual([100_090, 100_100, 100_110]);
    expect(h.equity.at(-2)).toBe(100_000 + 10 * (DAILY_COUNT - 1));
    expect(h.equity.at(-1)).toBe(101_035);
    expect(h.base_value).toBe(100_090);
    expect(h.profit_loss.slice(0, 3)).toEqual([0, 10, 20]);
    expect(h.profit_loss_pct[1]).toBeCloseTo(10 / 100_090, 9);
    expect(h).toMatchObject({ cashflow: {} });
    expect(h).not.toHaveProperty("base_value_asof");
  });

  it("answers a day of minutes for period=1D, and 15-minute windows on request", async () => {
    const minutes = await history("?period=1D");
    expect(minutes.timeframe).toBe("1Min");
    expect(minutes.timestamp.length).toBe(1441);
    expect(minutes.timestamp[0]).toBe(seconds("2026-03-09T15:07:00Z"));
    expect(minutes.equity[0]).toBe(100_000 + 10 * (DAILY_COUNT - 2)); // Mar 8's close: Mar 9's is at 21:00Z
    // Intraday: the base is the closing equity of the trading day before the first point's (Friday Mar 6,
    // 16:00 EST = 21:00Z, the 34th daily snapshot), and says so.
    expect(minutes.base_value).toBe(100_330);
    expect(minutes.base_value_asof).toBe("2026-03-06");
    expect(minutes.profit_loss[0]).toBe(100_000 + 10 * (DAILY_COUNT - 2) - 100_330);

    const quarters = await history("?period=1D&timeframe=15Min");
    expect(quarters.timeframe).toBe("15Min");
    expect(quarters.timestamp.length).toBe(97);
    const today = quarters.timestamp.slice(-3).map((t, i) => [t, quarters.equity.at(i - 3)]);
    // 14:30 window ends 14:45: the snapshot at 14:45 (at or before the end); 15:00 window: 15:05, the last.
    expect(today).toEqual([
      [seconds("2026-03-10T14:30:00Z"), 101_015],
      [seconds("2026-03-10T14:45:00Z"), 101_030],
      [seconds("2026-03-10T15:00:00Z"), 101_035],
    ]);
  });

  it("takes start and end, and leaves out windows before the first snapshot", async () => {
    const h = await history("?start=2026-01-25&end=2026-02-04T05:00:00Z&timeframe=1D");
    expect(h.timestamp).toEqual([
      seconds("2026-02-01T05:00:00Z"),
      seconds("2026-02-02T05:00:00Z"),
      seconds("2026-02-03T05:00:00Z"),
    ]);
    expect(h.equity).toEqual([100_000, 100_010, 100_020]);
    expect(h.base_value).toBe(100_000);

    const hours = await history("?start=2026-02-02T00:00:00Z&end=2026-02-04T00:00:00Z&timeframe=1H");
    expect(hours.timestamp.length).toBe(48);
    expect(hours.timestamp[0]).toBe(seconds("2026-02-02T00:00:00Z"));
  });

  it("ends with the New York day of date_end", async () => {
    const h = await history("?date_end=2026-02-10&period=1W");
    expect(h.timeframe).toBe("15Min");
    expect(h.timestamp[0]).toBe(seconds("2026-02-04T05:00:00Z"));
    expect(h.timestamp.at(-1)).toBe(seconds("2026-02-11T04:45:00Z"));
    expect(h.equity.at(-1)).toBe(100_090);
  });

  it("answers empty series for an account without snapshots", async () => {
    expect(await history("", emptyToken)).toEqual({
      timestamp: [],
      equity: [],
      profit_loss: [],
      profit_loss_pct: [],
      base_value: 0,
      timeframe: "1D",
      cashflow: {},
    });
  });

  it("accepts extended_hours, intraday_reporting, pnl_reset and cashflow_types, which change nothing", async () => {
    const plain = await history("?period=1W&timeframe=1H");
    const flagged = await history(
      "?period=1W&timeframe=1H&extended_hours=true&intraday_reporting=continuous&pnl_reset=no_reset&cashflow_types=ALL",
    );
    expect(flagged).toEqual(plain);
  });

  it("works with the official client's PortfolioHistoryApi", async () => {
    const api = new trading.PortfolioHistoryApi(
      new trading.Configuration({ basePath: hosts.origin.paper, accessToken: token }),
    );
    const h = await api.getAccountPortfolioHistory({
      start: new Date("2026-02-01T05:00:00Z"),
      end: new Date("2026-02-04T05:00:00Z"),
      timeframe: "1D",
      intradayReporting: "market_hours",
      pnlReset: "per_day",
    });
    expect(h).toMatchObject({ timeframe: "1D", baseValue: 100_000, equity: [100_000, 100_010, 100_020] });
    expect(h.profitLoss).toEqual([0, 10, 20]);
  });
});

describe("parameters the anchor refuses", () => {
  it.each([
    "period=1Y",
    "period=0D",
    "period=1.5M",
    "period=30A",
    "timeframe=2Min",
    "timeframe=1h",
    "timeframe=1H&period=3M",
    "timeframe=1Min&period=1W",
    "start=2026-02-01T00:00:00Z&end=2026-02-02T00:00:00Z&period=1D",
    "start=2026-02-02T00:00:00Z&end=2026-02-01T00:00:00Z",
    "end=2026-02-02T00:00:00Z&date_end=2026-02-02",
    "start=yesterday",
    "end=2026-02-30T00:00:00Z",
    "date_end=2026-02-30",
    `start=${"9".repeat(100)}`,
    "intraday_reporting=sometimes",
    "pnl_reset=weekly",
    "extended_hours=maybe",
  ])("422 with 42210000 for %s", async (query) => {
    const response = await fetch(`${hosts.origin.paper}/v2/account/portfolio/history?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ code: 42210000, message: expect.stringMatching(/^query\./) });
  });

  it("401 without credentials", async () => {
    const response = await fetch(`${hosts.origin.paper}/v2/account/portfolio/history`);
    expect(response.status).toBe(401);
  });
});
