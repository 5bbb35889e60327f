/**
 * Trading hosts over one test database, each on its own ephemeral port as the platform runs them (the
 * trading error format, the security schemes, the authentication hook in the scope of the `/v2` routes), for
 * tests of the trading API, its rate limit and the trade stream without the whole service. Credentials are
 * real: access tokens issued by the codes and tokens services, key pairs by the key pairs service.
 *
 * `createTradingTestBed` is the one builder; `startTradingTestHosts` is its common use, a live and a paper
 * host with the routes a test registers.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { closeGracefully, createHttpServer, createLogger, type HttpServer } from "@platform/kernel";
import type { AccountEnv } from "../domain/accountNumbers.ts";
import type { Scope } from "../domain/scopes.ts";
import { formatError } from "../http/trading/errorFormat.ts";
import type { TradingRateLimit } from "../http/trading/rateLimit.ts";
import { alpacaRequestBodies } from "../http/trading/requestBodies.ts";
import { tradingTags } from "../http/trading/tradingApi.ts";
import { createTradingAuth, tradingSecurity, tradingSecuritySchemes } from "../http/trading/tradingAuth.ts";
import { type AccountsService, createAccountsService } from "../services/accounts.ts";
import type { CreatedClient } from "../services/clients.ts";
import { type CreatedKeyPair, createKeyPairsService, type KeyPairsService } from "../services/keyPairs.ts";
import { type AccountRow, createAccountsRepository } from "../store/accountsRepository.ts";
import { createKeyPairsRepository } from "../store/keyPairsRepository.ts";
import { createOAuthFixture, type OAuthFixture } from "./oauthFixture.ts";

/** What a test host serves besides the kernel's `/health` and `/openapi.json`. */
export interface TradingTestHostOptions {
  /** The OpenAPI document's title. */
  title?: string;
  /** The limiter the authentication hook counts with (share one between hosts as the brokerage does). */
  rateLimit?: TradingRateLimit;
  /**
   * Routes behind the authentication hook, registered in one plugin as `registerTradingApi` scopes them.
   * Without it the host has no hook of its own (`beside` brings it, as the whole trading API does).
   */
  routes?: (api: HttpServer) => void;
  /** What is registered on the server outside that scope: the whole trading API, `/stream`. */
  beside?: (app: HttpServer) => Promise<void>;
}

export interface TradingTestHost {
  app: HttpServer;
  /** `http://127.0.0.1:<port>` */
  origin: string;
}

export interface TradingTestBed {
  /** The database, with its users, clients, codes and tokens services. */
  fixture: OAuthFixture;
  /** The services the authentication hook asks (for a host's `beside` routes that authenticate themselves). */
  accounts: AccountsService;
  keyPairs: KeyPairsService;
  /** The application the bed's tokens are issued to. */
  client: CreatedClient;
  /** A real access token of `userId` for the chosen accounts, with `scopes` (none = read-only). */
  token(userId: string, accounts: { live?: AccountRow; paper?: AccountRow }, scopes?: Scope[]): Promise<string>;
  /** A key pair of the account (every scope). */
  keyPair(account: AccountRow): Promise<CreatedKeyPair>;
  /** A trading host of `env` listening on an ephemeral port, stopped by `stopHosts` or `close`. */
  startHost(env: AccountEnv, options?: TradingTestHostOptions): Promise<TradingTestHost>;
  /** Stops every host started so far (before what they use is closed). */
  stopHosts(): Promise<void>;
  /** Stops the hosts and drops the database. */
  close(): Promise<void>;
}

/** A test database with the credential services, an application, and hosts started on demand. */
export async function createTradingTestBed(): Promise<TradingTestBed> {
  const fixture = await createOAuthFixture();
  const { db } = fixture.database;
  const accountsRepository = createAccountsRepository(db);
  const accounts = createAccountsService({ accounts: accountsRepository });
  const keyPairs = createKeyPairsService({ keyPairs: createKeyPairsRepository(db), accounts: accountsRepository });
  const client = await fixture.createClient();
  const redirectUri = client.redirect_uris[0] as string;
  const servers: HttpServer[] = [];

  async function startHost(env: AccountEnv, options: TradingTestHostOptions = {}): Promise<TradingTestHost> {
    const { title = "Trading API test", rateLimit, routes, beside } = options;
    const app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      bodyLimit: 1_048_576,
      bodies: alpacaRequestBodies,
      formatError,
      openapi: {
        title,
        version: "2",
        description: "Routes under test.",
        tags: tradingTags,
        securitySchemes: tradingSecuritySchemes,
        security: tradingSecurity,
      },
    });
    servers.push(app);
    if (routes) {
      const tradingAuth = createTradingAuth({ env, accountForBearer: accounts.forAccessToken, keyPairs, rateLimit });
      await app.register(async (plugin) => {
        const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
        api.decorateRequest("brokerage", null);
        api.addHook("onRequest", tradingAuth);
        routes(api as unknown as HttpServer);
      });
    }
    await beside?.(app);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    return { app, origin: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}` };
  }

  async function stopHosts(): Promise<void> {
    for (const app of servers.splice(0)) await closeGracefully(app, 1_000);
  }

  return {
    fixture,
    accounts,
    keyPairs,
    client,
    async token(userId, { live, paper }, scopes = []) {
      const code = await fixture.codes.issue({
        clientId: client.client_id,
        userId,
        redirectUri,
        scopes,
        liveAccountId: live?.id,
        paperAccountId: paper?.id,
      });
      const grant = await fixture.tokens.exchangeCode({ code, clientId: client.client_id, redirectUri });
      return grant.access_token;
    },
    keyPair: (account) => keyPairs.create({ accountId: account.id }),
    startHost,
    stopHosts,
    async close() {
      await stopHosts();
      await fixture.close();
    },
  };
}

export interface TradingTestHosts extends TradingTestBed {
  /** Where each host listens (`http://127.0.0.1:<port>`). */
  origin: Record<AccountEnv, string>;
}

/** Starts a live and a paper host; `register` adds the routes under test to each (behind the authentication hook). */
export async function startTradingTestHosts(
  register: (api: HttpServer, env: AccountEnv, fixture: OAuthFixture) => void,
): Promise<TradingTestHosts> {
  const bed = await createTradingTestBed();
  const start = async (env: AccountEnv) =>
    (
      await bed.startHost(env, {
        title: `Trading API test (${env})`,
        routes: (api) => register(api, env, bed.fixture),
      })
    ).origin;
  return { ...bed, origin: { live: await start("live"), paper: await start("paper") } };
}
