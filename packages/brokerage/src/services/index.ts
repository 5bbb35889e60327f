/**
 * Every service of the brokerage, built once per service instance over its repositories (the wiring of
 * `createBrokerage`; routes receive what they use from here).
 */
import type { Database, RateCounter } from "@platform/kernel";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import type { MarketSessionMode } from "../market/nyseCalendar.ts";
import { createAccessTokensRepository } from "../store/accessTokensRepository.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import { createAuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";
import { createClientsRepository } from "../store/clientsRepository.ts";
import { createKeyPairsRepository } from "../store/keyPairsRepository.ts";
import { createSessionsRepository } from "../store/sessionsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createAccountsService } from "./accounts.ts";
import { createAuthorizationService } from "./authorization.ts";
import { createClientsService } from "./clients.ts";
import { createCodesService } from "./codes.ts";
import { createKeyPairsService } from "./keyPairs.ts";
import { createLoginThrottle } from "./loginThrottle.ts";
import { createMarketService } from "./market.ts";
import { createOrdersService } from "./orders.ts";
import { createSessionsService } from "./sessions.ts";
import { createTokensService } from "./tokens.ts";
import { createUsersService } from "./users.ts";

export interface CreateBrokerageServicesParameters {
  db: Database;
  /** Failed-login counters (Redis with several instances, so the throttle holds across them). */
  loginFailures: RateCounter;
  /** `BROKERAGE_MARKET_SESSION`: whether the market keeps NYSE hours or is open at any hour. */
  marketSession: MarketSessionMode;
}

export function createBrokerageServices({ db, loginFailures, marketSession }: CreateBrokerageServicesParameters) {
  const accounts = createAccountsRepository(db);
  const codesRepository = createAuthorizationCodesRepository(db);
  const clients = createClientsService({ clients: createClientsRepository(db) });
  const codes = createCodesService({ codes: codesRepository });
  return {
    users: createUsersService({ users: createUsersRepository(db) }),
    accounts: createAccountsService({ accounts }),
    clients,
    codes,
    tokens: createTokensService({ codes: codesRepository, tokens: createAccessTokensRepository(db) }),
    keyPairs: createKeyPairsService({ keyPairs: createKeyPairsRepository(db), accounts }),
    orders: createOrdersService(),
    market: createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: marketSession }),
    sessions: createSessionsService({ sessions: createSessionsRepository(db) }),
    loginThrottle: createLoginThrottle({ counter: loginFailures }),
    authorization: createAuthorizationService({ clients, accounts, codes }),
  };
}

export type BrokerageServices = ReturnType<typeof createBrokerageServices>;
