/**
 * Every service of the brokerage, built once per service instance over its repositories (the wiring of
 * `createBrokerage`; routes receive what they use from here).
 */
import type { Database, RateCounter } from "@platform/kernel";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import type { MarketSessionMode } from "../market/nyseCalendar.ts";
import { createAccessTokensRepository } from "../store/accessTokensRepository.ts";
import { createAccountConfigurationsRepository } from "../store/accountConfigurationsRepository.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import { createActivitiesRepository } from "../store/activitiesRepository.ts";
import { createAuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";
import { createClientsRepository } from "../store/clientsRepository.ts";
import { createEquitySnapshotsRepository } from "../store/equitySnapshotsRepository.ts";
import { createKeyPairsRepository } from "../store/keyPairsRepository.ts";
import { createMarketDataReadRepository } from "../store/marketDataReadRepository.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createPositionsRepository } from "../store/positionsRepository.ts";
import { createSessionsRepository } from "../store/sessionsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createWatchlistsRepository } from "../store/watchlistsRepository.ts";
import { createAccountConfigurationsService } from "./accountConfigurations.ts";
import { createAccountsService } from "./accounts.ts";
import { createActivitiesService } from "./activities.ts";
import { createAuthorizationService } from "./authorization.ts";
import { createClientsService } from "./clients.ts";
import { createCodesService } from "./codes.ts";
import { createDataPrincipals } from "./dataPrincipals.ts";
import { createKeyPairsService } from "./keyPairs.ts";
import { createLoginThrottle } from "./loginThrottle.ts";
import { createMarketService } from "./market.ts";
import { createMarketDataService } from "./marketData.ts";
import { createOrdersService } from "./orders.ts";
import { createPortfolioHistoryService } from "./portfolioHistory.ts";
import { createPositionsService } from "./positions.ts";
import { createSessionsService } from "./sessions.ts";
import { createTokensService } from "./tokens.ts";
import { createUsersService } from "./users.ts";
import { createWatchlistsService } from "./watchlists.ts";

export interface CreateBrokerageServicesParameters {
  db: Database;
  /** Failed-login counters (Redis with several instances, so the throttle holds across them). */
  loginFailures: RateCounter;
  /** `BROKERAGE_MARKET_SESSION`: whether the market keeps NYSE hours or is open at any hour. */
  marketSession: MarketSessionMode;
  /** `BROKERAGE_MARKET_SEED`: the price process's seed. */
  marketSeed?: string;
  /** The current instant (tests pin it). */
  now?: () => Date;
  /** Wakes this process's exchange writer after a placement commits. */
  wakeExchange?: () => void;
}

export function createBrokerageServices({
  db,
  loginFailures,
  marketSession,
  marketSeed,
  now,
  wakeExchange,
}: CreateBrokerageServicesParameters) {
  const accounts = createAccountsRepository(db);
  const market = createMarketService({
    universe: createDefaultAssetUniverse(),
    sessionMode: marketSession,
    ...(marketSeed ? { seed: marketSeed } : {}),
    ...(now ? { now } : {}),
  });
  const positionsRepository = createPositionsRepository(db);
  const ordersRepository = createOrdersRepository(db);
  const orders = createOrdersService({
    db,
    orders: ordersRepository,
    market,
    ...(wakeExchange ? { wakeExchange } : {}),
  });
  const codesRepository = createAuthorizationCodesRepository(db);
  const clients = createClientsService({ clients: createClientsRepository(db) });
  const codes = createCodesService({ codes: codesRepository });
  const tokens = createTokensService({ codes: codesRepository, tokens: createAccessTokensRepository(db) });
  const keyPairs = createKeyPairsService({ keyPairs: createKeyPairsRepository(db), accounts });
  return {
    users: createUsersService({ users: createUsersRepository(db) }),
    accounts: createAccountsService({ accounts }),
    clients,
    codes,
    tokens,
    keyPairs,
    dataPrincipals: createDataPrincipals({ tokens, keyPairs }),
    orders,
    positions: createPositionsService({
      positions: positionsRepository,
      orderHolds: ordersRepository,
      market,
      orders,
    }),
    accountConfigurations: createAccountConfigurationsService({
      repository: createAccountConfigurationsRepository(db),
    }),
    watchlists: createWatchlistsService({ repository: createWatchlistsRepository(db), market }),
    activities: createActivitiesService({ activities: createActivitiesRepository(db) }),
    portfolioHistory: createPortfolioHistoryService({ equitySnapshots: createEquitySnapshotsRepository(db) }),
    market,
    marketData: createMarketDataService({
      reads: createMarketDataReadRepository(db),
      findListing: market.findListing,
      now: market.now,
    }),
    sessions: createSessionsService({ sessions: createSessionsRepository(db) }),
    loginThrottle: createLoginThrottle({ counter: loginFailures }),
    authorization: createAuthorizationService({ clients, accounts, codes }),
  };
}

export type BrokerageServices = ReturnType<typeof createBrokerageServices>;
