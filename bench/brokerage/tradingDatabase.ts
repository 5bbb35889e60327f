/**
 * The trading benchmarks' database (`orders`, `fillLatency`, `streamFanout`): `bench_brokerage_trading` on the
 * local PostgreSQL server, or a PGlite folder in the temp directory, made afresh for every run: the resting
 * orders, positions and events of an earlier run would change what a placement reads under its lock and what
 * the exchange writer rebuilds at its start. Accounts are made with the service's own code: a user with one
 * live account each (inserted by the users repository with a placeholder password hash: nobody logs in, and
 * argon2id would take a minute for a thousand users) and one OAuth access token (scopes `trading data`) bound
 * to it, issued and exchanged by the codes and tokens services.
 */
import { rmSync } from "node:fs";
import { createUsersRepository } from "../../packages/brokerage/src/store/usersRepository.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { prepareWithBrokerage } from "./brokerageSetup.ts";

const bench = benchDatabase("brokerage_trading");
export const TRADING_PGLITE_DIR = bench.pgliteDir;
export const tradingDatabaseUrl = () => bench.url();
export const openTradingDatabase = bench.open;

const REDIRECT_URI = "http://127.0.0.1:8765/callback";
const PLACEHOLDER_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo";

/** A live account and a bearer token of it. */
export interface TradingAccount {
  accountId: string;
  token: string;
}

/** What the benchmarks' processes share (written to a file for the load generator and the baseline). */
export interface TradingData {
  /** Accounts of the `orders` part. */
  orderAccounts: TradingAccount[];
  /** The one account of the `fillLatency` part. */
  fillAccount: TradingAccount;
  /** Accounts of the `streamFanout` part. */
  fanoutAccounts: TradingAccount[];
  /** The symbols orders are placed in, with the asset columns an order row copies. */
  assets: { symbol: string; id: string; class: string }[];
}

export const ORDER_SYMBOLS = ["AAPL", "MSFT", "NVDA", "AMD"];

/**
 * Drops and recreates the trading database (false when no PostgreSQL server answers), or removes the PGlite
 * folder.
 */
export async function freshTradingDatabase(driver: Driver): Promise<boolean> {
  if (driver === "postgres") return bench.preparePostgres({ fresh: true });
  rmSync(TRADING_PGLITE_DIR, { recursive: true, force: true });
  return true;
}

/** Migrates the fresh database and creates the accounts and tokens of the three parts. */
export function prepareTradingData(
  driver: Driver,
  counts: { orderAccounts: number; fanoutAccounts: number },
): Promise<TradingData> {
  return prepareWithBrokerage(
    () => openTradingDatabase(driver),
    "ANALYZE",
    async ({ db, config, services: { clients, codes, tokens, market } }) => {
      const users = createUsersRepository(db);
      const client = await clients.create({ name: "Trading bench app", redirectUris: [REDIRECT_URI] });
      const stamp = Date.now();
      const createAccount = async (n: number): Promise<TradingAccount> => {
        const user = await users.insertWithAccounts({
          email: `trader${n}-${stamp}@bench.example.com`,
          passwordHash: PLACEHOLDER_HASH,
          startingCash: config.brokerageStartingCash,
          paperAccounts: 0,
        });
        const live = user.accounts[0] as { id: string };
        const code = await codes.issue({
          clientId: client.client_id,
          userId: user.id,
          redirectUri: REDIRECT_URI,
          scopes: ["trading", "data"],
          liveAccountId: live.id,
        });
        const grant = await tokens.exchangeCode({ code, clientId: client.client_id, redirectUri: REDIRECT_URI });
        return { accountId: live.id, token: grant.access_token };
      };
      const total = counts.orderAccounts + 1 + counts.fanoutAccounts;
      const accounts: TradingAccount[] = [];
      // Batches of concurrent accounts: PostgreSQL takes them in parallel, PGlite one after the other.
      while (accounts.length < total) {
        const batch = Math.min(50, total - accounts.length);
        accounts.push(
          ...(await Promise.all(Array.from({ length: batch }, (_, i) => createAccount(accounts.length + i)))),
        );
      }
      return {
        orderAccounts: accounts.slice(0, counts.orderAccounts),
        fillAccount: accounts[counts.orderAccounts] as TradingAccount,
        fanoutAccounts: accounts.slice(counts.orderAccounts + 1),
        assets: ORDER_SYMBOLS.map((symbol) => {
          const { asset } = market.findListing(symbol) as { asset: { id: string; class: string } };
          return { symbol, id: asset.id, class: asset.class };
        }),
      };
    },
  );
}
