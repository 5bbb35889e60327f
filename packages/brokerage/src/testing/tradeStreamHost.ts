/**
 * A testbed for the trade-update stream: a brokerage database with one user (a live and two paper accounts),
 * the real accounts, key pairs, codes and tokens services, and trading hosts started as the platform starts
 * them (kernel `createHttpServer`, the trading authentication hook in its own scope, `/stream` beside it),
 * each on its own port with the hub it is given.
 */
import { createLogger, type Database, type HttpServer } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import type { AccountEnv } from "../domain/accountNumbers.ts";
import type { Scope } from "../domain/scopes.ts";
import { registerTradeStream, type TradeStreamParameters } from "../http/stream/tradeStream.ts";
import type { AccountRow } from "../store/accountsRepository.ts";
import { createTradeUpdatesHub, type TradeUpdatesHub } from "../stream/tradeUpdatesHub.ts";
import { createTradingTestBed } from "./tradingTestHosts.ts";

export type StreamHostOptions = Pick<TradeStreamParameters, "authTimeoutMs" | "pingIntervalMs" | "sendBufferLimit">;

export interface StreamHost {
  app: HttpServer;
  /** `ws://127.0.0.1:<port>/stream` */
  streamUrl: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
}

export async function createTradeStreamTestbed() {
  const bed = await createTradingTestBed();
  const database: TestDatabase = bed.fixture.database;
  const { db } = database;
  const { accounts, keyPairs } = bed;
  const logger = createLogger({ level: "silent" });
  const user = await bed.fixture.createUser(2);
  const hubs: TradeUpdatesHub[] = [];

  /** The process's hub on `on` (another connection to the same database plays another instance). */
  const createHub = (on: Database = db, pollIntervalMs = 60_000) => {
    const hub = createTradeUpdatesHub({ db: on, logger, pollIntervalMs });
    hubs.push(hub);
    return hub;
  };
  const hub = createHub();

  return {
    database,
    db,
    hub,
    createHub,
    keyPairs,
    live: user.accounts[0] as AccountRow,
    paper: (i: 0 | 1) => user.accounts[1 + i] as AccountRow,

    /** A real access token for the chosen accounts and scopes. */
    token: (bound: { live?: AccountRow; paper?: AccountRow }, scopes: Scope[]): Promise<string> =>
      bed.token(user.id, bound, scopes),

    /** A trading host of `env` with `/stream`, listening on an ephemeral port. */
    async startHost(
      env: AccountEnv,
      options: StreamHostOptions = {},
      withHub: TradeStreamParameters["hub"] = hub,
    ): Promise<StreamHost> {
      const { app, origin } = await bed.startHost(env, {
        title: "Trade stream test",
        // The trading routes' scope, as tradingApi.ts builds it: its hook must not catch `/stream`.
        routes: (api) => {
          api.get("/v2/account", async (request) => ({ id: request.brokerage?.account.id }));
        },
        beside: (server) =>
          registerTradeStream(server, {
            env,
            accountForBearer: accounts.forAccessToken,
            keyPairs,
            hub: withHub,
            logger,
            ...options,
          }),
      });
      return { app, streamUrl: `${origin.replace(/^http/, "ws")}/stream`, origin };
    },

    async close(): Promise<void> {
      // As the platform stops: the hosts, then the hubs, then the database they read.
      await bed.stopHosts();
      for (const h of hubs) await h.close();
      await bed.close();
    },
  };
}

export type TradeStreamTestbed = Awaited<ReturnType<typeof createTradeStreamTestbed>>;
