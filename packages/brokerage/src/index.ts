/**
 * The brokerage (Alpaca compatible): an OAuth 2.0 authorization server ("Alpaca Connect") and the trading
 * API v2 of end users' live and paper accounts, and the market data of its market, on four hosts as at the anchor:
 * - the authorization host (`BROKERAGE_AUTH_PORT`, 8200): login and consent pages, `/oauth/authorize`, the
 *   applications a user authorized;
 * - the live API (`BROKERAGE_LIVE_PORT`, 8201, the main host): `/v2/…`, and the token endpoint
 *   `POST /oauth/token` with `/oauth/revoke` and the authorization server metadata;
 * - the paper API (`BROKERAGE_PAPER_PORT`, 8202): `/v2/…`;
 * - the market data host (`BROKERAGE_DATA_PORT`, 8203): `/v2/stocks/…`, `/v1beta3/crypto/…` and the data streams.
 *
 * A request goes route (`http/`) → service (`services/`) → repository (`store/`); everything the hosts share
 * (services, the login throttle's counters) is created once in `createBrokerage(context)`.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  createFailedCredentials,
  createHttpServer,
  createJobWorker,
  createRateCounter,
  type DemoCredentials,
  type ErrorFormatter,
  failureLimitOf,
  type HttpServer,
  loadMigrations,
  type OpenApiErrors,
  type OperatorCommand,
  type PlatformContext,
  type ServiceDefinition,
  type ServiceInstance,
} from "@platform/kernel";
import { createExchangeWriter, type ExchangeWriter } from "./execution/exchangeWriter.ts";
import { registerApplicationsPage } from "./http/auth/applications.ts";
import { registerAuthorizationPages } from "./http/auth/authorize.ts";
import { registerDataStreams } from "./http/dataStream/dataStreams.ts";
import { marketDataTags, registerMarketDataApi } from "./http/marketData/marketDataApi.ts";
import { OAuthErrorBody } from "./http/oauth/formEndpoint.ts";
import { registerMetadataRoute } from "./http/oauth/metadata.ts";
import { registerRevocationRoute } from "./http/oauth/revoke.ts";
import { registerTokenRoute } from "./http/oauth/token.ts";
import { registerTradeStream } from "./http/stream/tradeStream.ts";
import { formatError as formatTradingError } from "./http/trading/errorFormat.ts";
import { createTradingRateLimit } from "./http/trading/rateLimit.ts";
import { alpacaRequestBodies } from "./http/trading/requestBodies.ts";
import { ApiError } from "./http/trading/schemas.ts";
import { registerTradingApi, tradingTags } from "./http/trading/tradingApi.ts";
import { tradingSecurity, tradingSecuritySchemes } from "./http/trading/tradingAuth.ts";
import { FAKEPACA_LISTING } from "./market/testFeed.ts";
import { createOperatorCommands } from "./operators.ts";
import { createMarketRecorder } from "./recording/marketRecorder.ts";
import { createDataStreamSlots, type DataStreamSlots } from "./services/dataStreamSlots.ts";
import { createEquitySnapshotRecorder, EQUITY_SNAPSHOTS_QUEUE } from "./services/equitySnapshots.ts";
import { type BrokerageServices, createBrokerageServices } from "./services/index.ts";
import { createMarketFeedHub, type MarketFeedHub } from "./stream/marketFeedHub.ts";
import { createTradeUpdatesHub, type TradeUpdatesHub } from "./stream/tradeUpdatesHub.ts";

export type BrokerageHost = "auth" | "live" | "paper" | "data";

export interface Brokerage extends ServiceInstance {
  services: BrokerageServices;
  operatorCommands: Readonly<Record<string, OperatorCommand>>;
  /** Public origin of a host: the configured one, or where its server listens. */
  originOf(host: BrokerageHost): string;
}

/** The OpenAPI document's head of each host. */
function openApiOf(host: BrokerageHost) {
  if (host === "auth") {
    return {
      title: "Brokerage authorization",
      version: "2.0.0",
      description: "OAuth 2.0 authorization endpoint and pages (Alpaca Connect compatible).",
      errors: { name: "OAuthError", schema: OAuthErrorBody },
    };
  }
  if (host === "data") {
    return {
      title: "Brokerage market data API",
      version: "2.0.0",
      description:
        "Market data of the brokerage's market (stocks v2, crypto v1beta3): history, latest values and snapshots, with OAuth 2.0 bearer tokens (scope data) or key pairs; Alpaca compatible. The streams are at ws /v2/{iex|sip|test} and /v1beta3/crypto/us.",
      securitySchemes: tradingSecuritySchemes,
      security: tradingSecurity,
      tags: marketDataTags,
      errors: dataErrors,
    };
  }
  return {
    title: `Brokerage trading API v2 (${host})`,
    version: "2.0.0",
    description: `Trading API v2 of ${host} accounts, with OAuth 2.0 bearer tokens or key pairs; Alpaca compatible.`,
    securitySchemes: tradingSecuritySchemes,
    security: tradingSecurity,
    tags: tradingTags,
    errors: tradingErrors,
  };
}

/** The error body of the trading hosts; every authenticated request counts against the rate limit. */
const tradingErrors: OpenApiErrors = {
  name: "ApiError",
  schema: ApiError,
  securedStatuses: [429],
  // Every write of an account locks it and refuses one that cannot trade (services/orders.ts).
  otherStatuses: [{ status: 403, methods: ["post", "put", "patch", "delete"] }],
};

/** The error body of the data host, which also refuses undeclared query parameters (strictQuery.ts). */
const dataErrors: OpenApiErrors = {
  name: "ApiError",
  schema: ApiError,
  securedStatuses: [429],
  otherStatuses: [{ status: 400 }],
};

/** Non-page errors of the authorization host (e.g. its JSON metadata) in the OAuth error shape. */
const formatAuthHostError: ErrorFormatter = (error) => ({
  statusCode: error.statusCode,
  body: { error: error.statusCode >= 500 ? "server_error" : "invalid_request", error_description: error.message },
});

export async function createBrokerage(context: PlatformContext): Promise<Brokerage> {
  const { config, db, logger } = context;
  const log = logger.child({ service: "brokerage" });
  // Failed-login counters: in Redis with several instances (REDIS_URL), so a throttle holds across them.
  const loginFailures = createRateCounter(config.redisUrl);
  // Failed tokens, key pairs and client credentials per client address (every host, on the same counters).
  const failedCredentials = createFailedCredentials({
    counter: loginFailures,
    service: "brokerage",
    limit: failureLimitOf(config),
  });
  // Requests per minute per token or key pair: shared by the live and paper hosts (and by instances via Redis).
  const tradingRequests = createRateCounter(config.redisUrl);
  const rateLimit = createTradingRateLimit({
    counter: tradingRequests,
    limitPerMinute: config.brokerageRateLimit,
    logger: log,
  });
  const marketDataRateLimit = createTradingRateLimit({
    counter: tradingRequests,
    limitPerMinute: config.brokerageRateLimit,
    logger: log,
    api: "data",
  });
  let writer: ExchangeWriter | undefined;
  // Trade updates for the stream: one reader of brokerage.trade_events per process, made on first use (operator
  // commands build the brokerage without serving it).
  let tradeUpdates: TradeUpdatesHub | undefined;
  const tradeUpdatesHub = (): TradeUpdatesHub => {
    tradeUpdates ??= createTradeUpdatesHub({ db, logger: log.child({ component: "trade-updates" }) });
    return tradeUpdates;
  };
  // The data host's live feed (one reader of brokerage.market_feed per process) and its stream connection
  // slots (Redis with REDIS_URL, else PostgreSQL), made on first use like the trade updates.
  let marketFeed: MarketFeedHub | undefined;
  const marketFeedHub = (): MarketFeedHub => {
    marketFeed ??= createMarketFeedHub({ db, logger: log.child({ component: "market-feed" }) });
    return marketFeed;
  };
  let dataSlots: DataStreamSlots | undefined;
  const dataStreamSlots = (): DataStreamSlots => {
    dataSlots ??= createDataStreamSlots({
      db,
      leaseSeconds: config.brokerageDataStreamLease,
      redisUrl: config.redisUrl,
    });
    return dataSlots;
  };
  const services = createBrokerageServices({
    db,
    loginFailures,
    marketSession: config.brokerageMarketSession,
    marketSeed: config.brokerageMarketSeed,
    wakeExchange: () => writer?.wake(),
  });
  const listening = new Map<BrokerageHost, HttpServer>();

  const originOf = (host: BrokerageHost): string => {
    const configured =
      host === "auth" ? config.brokerageAuthUrl : host === "live" ? config.brokerageLiveUrl : undefined;
    if (configured) return configured.replace(/\/+$/, "");
    const address = listening.get(host)?.server.address();
    const fallback = {
      auth: config.brokerageAuthPort,
      live: config.brokerageLivePort,
      paper: config.brokeragePaperPort,
      data: config.brokerageDataPort,
    };
    const port = typeof address === "object" && address ? address.port : fallback[host];
    return `http://${config.publicHost ?? config.host}:${port}`;
  };
  const urls = {
    issuer: () => originOf("auth"),
    authorizationEndpoint: () => `${originOf("auth")}/oauth/authorize`,
    tokenEndpoint: () => `${originOf("live")}/oauth/token`,
    revocationEndpoint: () => `${originOf("live")}/oauth/revoke`,
  };

  async function createServer(hostName?: string): Promise<HttpServer> {
    const host = (hostName ?? "live") as BrokerageHost;
    const app = await createHttpServer({
      logger: log.child({ host }),
      bodyLimit: config.bodyLimit,
      // The authorization pages take their own forms only; the API hosts read bodies as Alpaca does.
      bodies: host === "auth" ? undefined : alpacaRequestBodies,
      trustProxy: config.trustProxy,
      formatError: host === "auth" ? formatAuthHostError : formatTradingError,
      openapi: openApiOf(host),
    });
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    if (host === "data") {
      await registerMarketDataApi(typed, {
        marketData: services.marketData,
        principals: services.dataPrincipals,
        rateLimit: marketDataRateLimit,
        failedCredentials,
      });
      await registerDataStreams(typed, {
        principals: services.dataPrincipals,
        slots: dataStreamSlots(),
        hub: marketFeedHub(),
        logger: log.child({ host, component: "data-stream" }),
        // The REST routes' limit: a credential guessed over the stream spends the same allowance.
        failedCredentials,
      });
    } else if (host === "auth") {
      // First: it sets the pages' security headers (CSP, frame-ancestors) on every answer of this host.
      registerAuthorizationPages(typed, { services, urls });
      registerApplicationsPage(typed, { services, urls });
      registerMetadataRoute(typed, urls);
    } else {
      if (host === "live") {
        registerTokenRoute(typed, { tokens: services.tokens, clients: services.clients, failedCredentials });
        registerRevocationRoute(typed, { tokens: services.tokens, clients: services.clients, failedCredentials });
      }
      registerMetadataRoute(typed, urls);
      await registerTradingApi(typed, {
        env: host,
        accountForBearer: services.accounts.forAccessToken,
        keyPairs: services.keyPairs,
        orders: services.orders,
        positions: services.positions,
        market: services.market,
        accountConfigurations: services.accountConfigurations,
        watchlists: services.watchlists,
        activities: services.activities,
        portfolioHistory: services.portfolioHistory,
        rateLimit,
        failedCredentials,
      });
      await registerTradeStream(typed, {
        env: host,
        accountForBearer: services.accounts.forAccessToken,
        keyPairs: services.keyPairs,
        hub: tradeUpdatesHub(),
        logger: log.child({ host, component: "stream" }),
        failedCredentials,
      });
    }
    listening.set(host, app);
    app.addHook("onClose", async () => {
      listening.delete(host);
    });
    return app;
  }

  const operatorCommands = createOperatorCommands({ db, config });
  return {
    services,
    operatorCommands,
    originOf,
    createServer,
    async seedDemo(): Promise<DemoCredentials | undefined> {
      const seeded = await operatorCommands.seedDemo({});
      if (!seeded) return undefined;
      const s = seeded as {
        email: string;
        password: string;
        client_id: string;
        client_secret: string;
        redirect_uri: string;
      };
      const authorize = new URL(urls.authorizationEndpoint());
      authorize.search = new URLSearchParams({
        response_type: "code",
        client_id: s.client_id,
        redirect_uri: s.redirect_uri,
        state: "demo",
        scope: "trading data",
      }).toString();
      return {
        title: "Brokerage demo, created on this first start",
        lines: [
          ["user", s.email],
          ["password", s.password],
          ["client_id", s.client_id],
          ["client_secret", s.client_secret],
          ["redirect_uri", s.redirect_uri],
          ["authorize", authorize.toString()],
        ],
      };
    },
    /**
     * The background work, on the kernel's job and lease layer (several workers may share one database): the
     * exchange writer and the market data recorder run where their lease is held (`brokerage.exchange-writer`,
     * `brokerage.market-recorder`), the equity snapshots are a recurring job (`brokerage.equity-snapshots`,
     * one occurrence per minute across the workers).
     */
    async startJobs() {
      writer = createExchangeWriter({
        db,
        market: services.market,
        logger: log,
        onEvents: () => {
          tradeUpdates?.wake();
          marketFeed?.wake();
        },
      });
      writer.start();
      const started = writer;
      const snapshots = createEquitySnapshotRecorder({
        db,
        market: services.market,
        intervalMs: 60_000,
        logger: log.child({ job: "equitySnapshots" }),
      });
      const worker = createJobWorker({
        db,
        logger: log,
        queues: { [EQUITY_SNAPSHOTS_QUEUE]: snapshots.queue },
        schedules: [snapshots.schedule],
      });
      await worker.start();
      const marketData = createMarketRecorder({
        db,
        seed: config.brokerageMarketSeed,
        // Inactive assets do not trade; the test feed's symbol is recorded with the market.
        listings: [...services.market.listings().filter((l) => l.asset.status === "active"), FAKEPACA_LISTING],
        logger: log.child({ job: "marketRecorder" }),
        backfillDays: config.brokerageDataBackfillDays,
        retentionDays: config.brokerageDataRetentionDays,
        onRecorded: () => marketFeed?.wake(),
      });
      marketData.start();
      return {
        stop: async () => {
          await Promise.all([started.stop(), worker.stop(), marketData.stop()]);
        },
        status: () => ({
          exchange: started.status(),
          equitySnapshots: snapshots.status(),
          marketData: marketData.status(),
        }),
      };
    },
    close: async () => {
      await Promise.all([
        loginFailures.close(),
        tradingRequests.close(),
        tradeUpdates?.close(),
        marketFeed?.close(),
        dataSlots?.close(),
      ]);
    },
  };
}

export const brokerageService: ServiceDefinition<Brokerage> = {
  name: "brokerage",
  title: "Brokerage live trading API (+ OAuth token endpoint)",
  migrations: loadMigrations("brokerage", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.brokerageLivePort,
  basePath: "",
  hosts: [
    { name: "auth", title: "Brokerage authorization pages", port: (c) => c.brokerageAuthPort, basePath: "" },
    { name: "paper", title: "Brokerage paper trading API", port: (c) => c.brokeragePaperPort, basePath: "" },
    { name: "data", title: "Brokerage market data (REST and streams)", port: (c) => c.brokerageDataPort, basePath: "" },
  ],
  // Applications authenticate with OAuth tokens or operator-issued key pairs, not the platform's API keys.
  usesApiKeys: false,
  create: createBrokerage,
};

/** The trading hosts' bearer statement, for the benchmark's baseline (bench/brokerage). */
export { ACCOUNT_FOR_TOKEN_SQL } from "./store/accountsRepository.ts";
/** The account route's valuation statement, for the same baseline. */
export { VALUATION_INPUTS_SQL } from "./store/ordersRepository.ts";
