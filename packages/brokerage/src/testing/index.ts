/**
 * Test helpers of the brokerage (`@platform/brokerage/testing`): a database with its migrations, the
 * authorization host started as `platform start` starts it, an OAuth client fixture and a form-submitting
 * HTTP agent for the login and consent pages; a seeded random order flow for the exchange's books.
 */
export { type AuthHost, BrowserSession, formFields, PASSWORD, startAuthHost } from "./authHost.ts";
export { brokerageMigrations, createBrokerageTestDatabase } from "./brokerageDatabase.ts";
export { type DataHost, startDataHost } from "./dataHost.ts";
export { FormAgent, parseForms, throughAuthorizationPages } from "./formAgent.ts";
export { accountsOf, createOAuthFixture, type OAuthFixture } from "./oauthFixture.ts";
export {
  applyFlowCommand,
  type FlowCommand,
  type FlowMix,
  type OrderFlowOptions,
  randomOrderFlow,
  seededRandom,
} from "./randomOrderFlow.ts";
export {
  type ConnectTradeStreamOptions,
  connectTradeStream,
  type ReceivedMessage,
  type TradeStreamClient,
} from "./tradeStreamClient.ts";
export { type JsonBody, startTradingHost, type TradingClient, type TradingHost } from "./tradingHost.ts";
