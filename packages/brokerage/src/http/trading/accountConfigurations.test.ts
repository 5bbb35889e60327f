/**
 * `GET`/`PATCH /v2/account/configurations` over HTTP on a live and a paper host: the anchor's object with its
 * defaults, partial changes kept per account (live and paper apart), the anchor's 400 for any value it does
 * not accept (and nothing changed then), the `account:write` scope, and the official client (4.0.2).
 */
import { trading } from "@alpacahq/alpaca-trade-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ACCOUNT_CONFIGURATIONS } from "../../domain/accountConfigurations.ts";
import { createAccountConfigurationsService } from "../../services/accountConfigurations.ts";
import { createAccountConfigurationsRepository } from "../../store/accountConfigurationsRepository.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { accountsOf } from "../../testing/oauthFixture.ts";
import { startTradingTestHosts, type TradingTestHosts } from "../../testing/tradingTestHosts.ts";
import { registerAccountConfigurationRoutes } from "./accountConfigurations.ts";

const PATH = "/v2/account/configurations";
const UNACCEPTABLE = { code: 40010000, message: "One of the new values is unacceptable." };

let hosts: TradingTestHosts;
let user: UserWithAccounts;
let live: AccountRow;
let paper: AccountRow;
/** Tokens with `account:write` for the user's live and (first) paper account. */
let writer: string;

beforeAll(async () => {
  hosts = await startTradingTestHosts((api, _env, fixture) => {
    const repository = createAccountConfigurationsRepository(fixture.database.db);
    registerAccountConfigurationRoutes(api, {
      accountConfigurations: createAccountConfigurationsService({ repository }),
    });
  });
  user = await hosts.fixture.createUser(1);
  ({
    live,
    paper: [paper],
  } = accountsOf(user));
  writer = await hosts.token(user.id, { live, paper }, ["account:write"]);
});
afterAll(() => hosts?.close());

const call = (env: "live" | "paper", method: string, token: string, body?: unknown) =>
  fetch(`${hosts.origin[env]}${PATH}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

async function configurationsOf(env: "live" | "paper") {
  const response = await call(env, "GET", writer);
  expect(response.status).toBe(200);
  return response.json();
}

describe("GET /v2/account/configurations", () => {
  it("answers the anchor's object with the defaults of a new account, on both hosts", async () => {
    const user2 = await hosts.fixture.createUser(1);
    const {
      live: live2,
      paper: [paper2],
    } = accountsOf(user2);
    const readOnly = await hosts.token(user2.id, { live: live2, paper: paper2 });
    for (const env of ["live", "paper"] as const) {
      const response = await call(env, "GET", readOnly);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        dtbp_check: "entry",
        trade_confirm_email: "all",
        suspend_trade: false,
        no_shorting: false,
        fractional_trading: true,
        max_margin_multiplier: "4",
        pdt_check: "entry",
        max_options_trading_level: 0,
        ptp_no_exception_entry: false,
        disable_overnight_trading: false,
      });
    }
  });

  it("401 without credentials", async () => {
    const response = await fetch(`${hosts.origin.live}${PATH}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 40110000, message: "request is not authorized" });
  });
});

describe("PATCH /v2/account/configurations", () => {
  it("changes the fields given, keeps the others, answers the whole object; the other host's account is apart", async () => {
    const before = await configurationsOf("paper");
    const response = await call("paper", "PATCH", writer, { no_shorting: true, dtbp_check: "both" });
    expect(response.status).toBe(200);
    const expected = { ...before, no_shorting: true, dtbp_check: "both" };
    expect(await response.json()).toEqual(expected);
    expect(await configurationsOf("paper")).toEqual(expected);
    expect((await configurationsOf("live")).no_shorting).toBe(false);

    const second = await call("paper", "PATCH", writer, { max_margin_multiplier: "1" });
    expect(await second.json()).toEqual({ ...expected, max_margin_multiplier: "1" });
  });

  it("sets every stored field at once, and an empty body changes nothing", async () => {
    const all = {
      dtbp_check: "exit",
      trade_confirm_email: "none",
      suspend_trade: true,
      no_shorting: true,
      fractional_trading: false,
      max_margin_multiplier: "2",
      pdt_check: "both",
    };
    const response = await call("live", "PATCH", writer, all);
    expect(response.status).toBe(200);
    const expected = { ...DEFAULT_ACCOUNT_CONFIGURATIONS, ...all };
    expect(await response.json()).toEqual(expected);
    const empty = await call("live", "PATCH", writer, {});
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual(expected);
    const [row] = await hosts.fixture.database.db.query(
      "SELECT dtbp_check, suspend_trade, max_margin_multiplier FROM brokerage.accounts WHERE id = $1",
      [live.id],
    );
    expect(row).toEqual({ dtbp_check: "exit", suspend_trade: true, max_margin_multiplier: "2" });
  });

  it("takes back the object it answered (a read-modify-write client)", async () => {
    const current = await configurationsOf("live");
    const response = await call("live", "PATCH", writer, { ...current, suspend_trade: !current.suspend_trade });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...current, suspend_trade: !current.suspend_trade });
  });

  it.each([
    ["an unknown value", { dtbp_check: "sometimes" }],
    ["a value in the wrong case", { trade_confirm_email: "ALL" }],
    ["a boolean as a string", { suspend_trade: "true" }],
    ["a multiplier as a number", { max_margin_multiplier: 2 }],
    ["a multiplier not offered", { max_margin_multiplier: "3" }],
    ["options trading", { max_options_trading_level: 1 }],
    ["PTP exceptions", { ptp_no_exception_entry: true }],
    ["overnight trading disabled", { disable_overnight_trading: true }],
  ])("400 for %s, and the valid fields sent with it are not applied either", async (_label, body) => {
    const before = await configurationsOf("paper");
    const response = await call("paper", "PATCH", writer, { fractional_trading: !before.fractional_trading, ...body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(UNACCEPTABLE);
    expect(await configurationsOf("paper")).toEqual(before);
  });

  it("ignores fields it does not know and reads null as absent, as the anchor; the others are applied", async () => {
    const before = await configurationsOf("paper");
    const body = { fractional_trading: !before.fractional_trading, shorting: false, no_shorting: null };
    const response = await call("paper", "PATCH", writer, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...before, fractional_trading: !before.fractional_trading });
  });

  it.each([
    ["an array", "[]"],
    ["a string", '"no_shorting"'],
    ["a number", "4"],
  ])("400 for a body that is %s", async (_label, raw) => {
    const response = await call("paper", "PATCH", writer, raw);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(UNACCEPTABLE);
  });

  it("400 in the anchor's body format for a body that is not JSON", async () => {
    const response = await call("paper", "PATCH", writer, "{no");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 40010000, message: "request body format is invalid" });
  });
});

describe("the account:write scope", () => {
  it("reads with any token, writes only with account:write or a key pair", async () => {
    for (const scopes of [[], ["trading"], ["trading", "data"]] as const) {
      const t = await hosts.token(user.id, { paper }, [...scopes]);
      expect((await call("paper", "GET", t)).status).toBe(200);
      const refused = await call("paper", "PATCH", t, { suspend_trade: false });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ code: 40110000, message: "token is not authorized for this scope" });
      expect(refused.headers.get("www-authenticate")).toBe(
        'Bearer realm="brokerage", error="insufficient_scope", scope="account:write"',
      );
    }
    const key = await hosts.keyPair(paper);
    const response = await fetch(`${hosts.origin.paper}${PATH}`, {
      method: "PATCH",
      headers: {
        "APCA-API-KEY-ID": key.key_id,
        "APCA-API-SECRET-KEY": key.secret_key,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ trade_confirm_email: "none" }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).trade_confirm_email).toBe("none");
  });
});

describe("with the official client (@alpacahq/alpaca-trade-api 4.0.2)", () => {
  it("getAccountConfig and patchAccountConfig", async () => {
    const user3 = await hosts.fixture.createUser(1);
    const {
      paper: [paper3],
    } = accountsOf(user3);
    const accessToken = await hosts.token(user3.id, { paper: paper3 }, ["account:write"]);
    const api = new trading.AccountConfigurationsApi(
      new trading.Configuration({ basePath: hosts.origin.paper, accessToken }),
    );
    expect(await api.getAccountConfig()).toMatchObject({
      noShorting: false,
      maxMarginMultiplier: "4",
      dtbp_check: "entry",
    });
    const changed = await api.patchAccountConfig({
      accountConfigurations: { noShorting: true, tradeConfirmEmail: "none" },
    });
    expect(changed).toMatchObject({
      noShorting: true,
      tradeConfirmEmail: "none",
      suspendTrade: false,
      pdt_check: "entry",
    });
    await expect(api.patchAccountConfig({ accountConfigurations: { maxMarginMultiplier: "8" } })).rejects.toMatchObject(
      {
        status: 400,
      },
    );
  });
});
