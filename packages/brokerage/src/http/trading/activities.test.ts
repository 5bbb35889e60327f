/**
 * `GET /v2/account/activities[/{activity_type}]` over HTTP: the cash deposit written when an account opens,
 * 250 fills paged with `page_token` in both directions (fills sharing a millisecond included), type,
 * category and time filters, other accounts' activities never shown, every bad parameter a 422 with the
 * anchor's code, and the official client (4.0.2).
 */
import { randomUUID } from "node:crypto";
import { trading } from "@alpacahq/alpaca-trade-api";
import type { Queryable } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityId } from "../../domain/activityIds.ts";
import { newYorkWallTime } from "../../market/newYorkTime.ts";
import { createActivitiesService } from "../../services/activities.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { createActivitiesRepository } from "../../store/activitiesRepository.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { accountsOf } from "../../testing/oauthFixture.ts";
import { startTradingTestHosts, type TradingTestHosts } from "../../testing/tradingTestHosts.ts";
import { registerActivityRoutes } from "./activities.ts";

let hosts: TradingTestHosts;
let db: Queryable;
let user: UserWithAccounts;
let paper: AccountRow;
let token: string;
/** The paper account's fills: id, time and rank n (1-based, in order of insertion), oldest first. */
let fills: { id: string; at: Date; n: number }[];
let orderId: string;

const FIRST_FILL = Date.parse("2026-01-05T14:30:00Z");
const FILL_COUNT = 250;

async function insertOrder(accountId: string): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO brokerage.orders (id, account_id, client_order_id, symbol, asset_id, asset_class, side, type,
       time_in_force, qty, status, created_at, updated_at, submitted_at)
     VALUES ($1, $2, $3, 'AAPL', $1, 'us_equity', 'buy', 'market', 'day', 1000, 'partially_filled',
       now(), now(), now())`,
    [id, accountId, `client-${id}`],
  );
  return id;
}

/** Fills of 2 shares of one order at `times` (the n-th at 187.5 + n/100, cum_qty 2n), as order execution writes them. */
async function insertFills(accountId: string, order: string, times: Date[]): Promise<string[]> {
  const ids = times.map((t) => activityId(t));
  await db.query(
    `INSERT INTO brokerage.activities (id, account_id, activity_type, transaction_time, order_id, execution_id,
       symbol, side, type, qty, price, cum_qty, leaves_qty, order_status)
     SELECT f.id, $1, 'FILL', f.at, $2, f.id, 'AAPL', 'buy', 'partial_fill', 2, 187.5 + f.n / 100.0, 2 * f.n,
       1000 - 2 * f.n, 'partially_filled'
     FROM unnest($3::text[], $4::timestamptz[]) WITH ORDINALITY AS f (id, at, n)`,
    [accountId, order, ids, times.map((t) => t.toISOString())],
  );
  return ids;
}

beforeAll(async () => {
  hosts = await startTradingTestHosts((api, _env, fixture) => {
    const activities = createActivitiesService({ activities: createActivitiesRepository(fixture.database.db) });
    registerActivityRoutes(api, { activities });
  });
  db = hosts.fixture.database.db;
  user = await hosts.fixture.createUser(1);
  paper = accountsOf(user).paper[0];
  token = await hosts.token(user.id, { paper });
  // Two fills per instant: ties in time are ordered by the rest of the id, and pages never split them wrongly.
  const times = Array.from({ length: FILL_COUNT }, (_, i) => new Date(FIRST_FILL + Math.floor(i / 2) * 15 * 60_000));
  orderId = await insertOrder(paper.id);
  const ids = await insertFills(paper.id, orderId, times);
  fills = ids.map((id, i) => ({ id, at: times[i] as Date, n: i + 1 })).sort((a, b) => (a.id < b.id ? -1 : 1));
  // Another user's fills at the same times: never in this account's answers.
  const other = accountsOf(await hosts.fixture.createUser(1)).paper[0];
  await insertFills(other.id, await insertOrder(other.id), times);
});
afterAll(() => hosts?.close());

const get = (path: string, headers: Record<string, string> = { Authorization: `Bearer ${token}` }) =>
  fetch(`${hosts.origin.paper}${path}`, { headers });

async function list(path: string): Promise<{ id: string; activity_type: string; [field: string]: unknown }[]> {
  const response = await get(path);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** Every page of a listing, following `page_token`, until a short page. */
async function allPages(path: string, pageSize: number): Promise<string[][]> {
  const pages: string[][] = [];
  let pageToken: string | undefined;
  for (;;) {
    const separator = path.includes("?") ? "&" : "?";
    const query = `page_size=${pageSize}${pageToken ? `&page_token=${encodeURIComponent(pageToken)}` : ""}`;
    const page = (await list(`${path}${separator}${query}`)).map((a) => a.id);
    pages.push(page);
    if (page.length < pageSize) return pages;
    pageToken = page.at(-1);
  }
}

const fillIds = (keep: (at: Date) => boolean = () => true) => fills.filter((f) => keep(f.at)).map((f) => f.id);

describe("the cash deposit of an account's opening", () => {
  it("is a CSD activity of the starting cash, written with the account", async () => {
    const deposits = await list("/v2/account/activities/CSD");
    expect(deposits).toEqual([
      {
        activity_type: "CSD",
        id: expect.stringMatching(/^\d{17}::[0-9a-f-]{36}$/),
        date: newYorkWallTime(paper.created_at.getTime()).date,
        net_amount: "100000",
        description: "Initial deposit",
        status: "executed",
      },
    ]);
    // Its id is of the time of the opening (the account's own clock, within a few seconds).
    const [deposit] = deposits;
    const [prefix] = String(deposit?.id).split("::");
    const opened = Date.UTC(
      Number(prefix?.slice(0, 4)),
      Number(prefix?.slice(4, 6)) - 1,
      Number(prefix?.slice(6, 8)),
      Number(prefix?.slice(8, 10)),
      Number(prefix?.slice(10, 12)),
      Number(prefix?.slice(12, 14)),
      Number(prefix?.slice(14, 17)),
    );
    expect(Math.abs(opened - paper.created_at.getTime())).toBeLessThan(10_000);
    // Every account of the user has its own.
    const live = accountsOf(user).live;
    const [liveDeposit] = await (
      await fetch(`${hosts.origin.live}/v2/account/activities/CSD`, {
        headers: { Authorization: `Bearer ${await hosts.token(user.id, { live })}` },
      })
    ).json();
    expect(liveDeposit).toMatchObject({ activity_type: "CSD", net_amount: "100000" });
    expect(liveDeposit.id).not.toBe(deposit?.id);
  });
});

describe("GET /v2/account/activities", () => {
  it("answers the newest 100 first, the deposit (newest) then the fills, in the anchor's FILL shape", async () => {
    const page = await list("/v2/account/activities");
    expect(page.length).toBe(100);
    expect(page[0]?.activity_type).toBe("CSD");
    expect(page.slice(1).map((a) => a.id)).toEqual(fillIds().reverse().slice(0, 99));
    const last = fills.at(-1) as (typeof fills)[number];
    expect(page[1]).toEqual({
      activity_type: "FILL",
      id: last.id,
      transaction_time: last.at.toISOString(),
      type: "partial_fill",
      price: String((18_750 + last.n) / 100),
      qty: "2",
      side: "buy",
      symbol: "AAPL",
      leaves_qty: String(1000 - 2 * last.n),
      order_id: orderId,
      cum_qty: String(2 * last.n),
      order_status: "partially_filled",
    });
  });

  it("pages through 250 fills with page_token, newest first and oldest first", async () => {
    const descending = await allPages("/v2/account/activities/FILL", 100);
    expect(descending.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(descending.flat()).toEqual(fillIds().reverse());

    const ascending = await allPages("/v2/account/activities?activity_types=FILL&direction=asc", 37);
    expect(ascending.map((p) => p.length)).toEqual([37, 37, 37, 37, 37, 37, 28]);
    expect(ascending.flat()).toEqual(fillIds());
  });

  it("selects by activity_types and category", async () => {
    expect((await list("/v2/account/activities?activity_types=CSD")).map((a) => a.activity_type)).toEqual(["CSD"]);
    const both = await list("/v2/account/activities?activity_types=FILL, CSD&page_size=100&direction=asc");
    expect(both.at(-1)?.activity_type).toBe("FILL");
    expect(await list("/v2/account/activities?activity_types=DIV,FEE")).toEqual([]);
    const trades = await list("/v2/account/activities?category=trade_activity");
    expect(new Set(trades.map((a) => a.activity_type))).toEqual(new Set(["FILL"]));
    const others = await list("/v2/account/activities?category=non_trade_activity");
    expect(others.map((a) => a.activity_type)).toEqual(["CSD"]);
  });

  it("selects a New York day with date, given as a date or as the client's timestamp", async () => {
    // 2026-01-06 in New York: [05:00Z on the 6th, 05:00Z on the 7th).
    const expected = fillIds((at) => newYorkWallTime(at.getTime()).date === "2026-01-06").reverse();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(FILL_COUNT);
    expect((await allPages("/v2/account/activities/FILL?date=2026-01-06", 100)).flat()).toEqual(expected);
    const clientDate = "2026-01-06T00:00:00.000Z"; // new Date("2026-01-06").toISOString()
    const byTimestamp = await allPages(`/v2/account/activities?activity_types=FILL&date=${clientDate}`, 100);
    expect(byTimestamp.flat()).toEqual(expected);
    expect(await list("/v2/account/activities/FILL?date=2026-01-04")).toEqual([]);
  });

  it("bounds the time with after and until, both exclusive", async () => {
    const after = new Date(FIRST_FILL + 10 * 15 * 60_000); // the 21st and 22nd fills are at this instant
    const until = new Date(FIRST_FILL + 20 * 15 * 60_000);
    const between = (at: Date) => at > after && at < until;
    const query = `after=${after.toISOString()}&until=${until.toISOString()}&direction=asc`;
    expect((await list(`/v2/account/activities/FILL?${query}`)).map((a) => a.id)).toEqual(fillIds(between));
    expect(fillIds(between).length).toBe(18);
    // An offset, and a date alone (midnight New York).
    const offset = (await allPages("/v2/account/activities/FILL?after=2026-01-06T09:30:00-05:00", 100)).flat();
    expect(offset).toEqual(fillIds((at) => at.getTime() > Date.parse("2026-01-06T14:30:00Z")).reverse());
    const untilDate = (await allPages("/v2/account/activities/FILL?until=2026-01-06", 100)).flat();
    expect(untilDate).toEqual(fillIds((at) => at.getTime() < Date.parse("2026-01-06T05:00:00Z")).reverse());
    // page_token continues inside the bounds.
    const pages = await allPages(`/v2/account/activities/FILL?${query}`, 5);
    expect(pages.flat()).toEqual(fillIds(between));
  });

  it("works with the official client's AccountActivitiesApi", async () => {
    const api = new trading.AccountActivitiesApi(
      new trading.Configuration({ basePath: hosts.origin.paper, accessToken: token }),
    );
    const first = await api.getAccountActivities({ activityTypes: ["FILL"], direction: "asc", pageSize: 3 });
    expect(first.map((a) => a.id)).toEqual(fillIds().slice(0, 3));
    expect(first[0]).toMatchObject({ activityType: "FILL", qty: "2", orderId, transactionTime: fills[0]?.at });
    const next = await api.getAccountActivitiesByActivityType({
      activityType: "FILL",
      direction: "asc",
      pageSize: 3,
      pageToken: first.at(-1)?.id as string,
    });
    expect(next.map((a) => a.id)).toEqual(fillIds().slice(3, 6));
    const deposits = await api.getAccountActivities({ category: "non_trade_activity" });
    expect(deposits).toEqual([
      expect.objectContaining({ activityType: "CSD", netAmount: "100000", status: "executed" }),
    ]);
  });
});

describe("parameters the anchor refuses", () => {
  it.each([
    "/v2/account/activities?activity_types=BOGUS",
    "/v2/account/activities?activity_types=FILL,fill",
    "/v2/account/activities?activity_types=FILL;CSD",
    "/v2/account/activities?activity_types=",
    "/v2/account/activities?activity_types=FILL&category=trade_activity",
    "/v2/account/activities?category=trades",
    "/v2/account/activities/BOGUS",
    "/v2/account/activities/fill",
    "/v2/account/activities?date=2026-01-06&after=2026-01-05",
    "/v2/account/activities/FILL?date=2026-01-06&until=2026-01-07",
    "/v2/account/activities?date=yesterday",
    "/v2/account/activities?date=2026-02-30",
    "/v2/account/activities?after=2026-02-30T00:00:00Z",
    "/v2/account/activities?until=2026-01-01T25:00:00Z",
    `/v2/account/activities?after=${"9".repeat(100)}`,
    "/v2/account/activities?direction=sideways",
    "/v2/account/activities?page_size=0",
    "/v2/account/activities?page_size=101",
    "/v2/account/activities?page_size=abc",
    "/v2/account/activities?page_size=1.5",
    "/v2/account/activities?page_token=nope",
    "/v2/account/activities/FILL?page_token=20260105143000000::not-a-uuid",
  ])("422 with 42210000 for %s", async (path) => {
    const response = await get(path);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ code: 42210000, message: expect.stringMatching(/^(query|path)\./) });
  });

  it("401 without credentials, before any validation", async () => {
    const response = await get("/v2/account/activities?page_size=0", {});
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 40110000, message: "request is not authorized" });
  });
});
