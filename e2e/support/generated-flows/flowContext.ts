/**
 * What each flow of `generated-flows/` is given: the origin of its host(s), credentials, and the middleware
 * that checks every answer against the served document. The flows are typed against the types
 * `openapi-typescript` generates from the served documents at test time (`./generated/<name>.ts`, which exists
 * only then: see `e2e/generatedClients.test.ts`), so the root typecheck leaves this folder out.
 */
import type { Middleware } from "openapi-fetch";

export interface FlowContext {
  /** Origin of the service's (main) host; the documents' paths carry the base path. */
  origin: string;
  /** Checks each answer against the served document of the host it came from. */
  checkAnswers(host?: string): Middleware;
}

export interface WearablesFlowContext extends FlowContext {
  apiKey: string;
  /** A small GPX file of a workout, and the instants its samples cover. */
  gpx: { text: string; start: Date; end: Date };
}

export interface CrosschainFlowContext extends FlowContext {
  apiKey: string;
  /** A USDC route of the devnet. */
  route: { originChainId: number; destinationChainId: number; inputToken: string; outputToken: string };
  /** The address `deposit` deposits from. */
  depositor: string;
  /** Deposits `inputAmount` of the route's input token for `outputAmount` with viem; the transaction hash. */
  deposit(amounts: { inputAmount: string; outputAmount: string }): Promise<string>;
}

export interface BrokerageFlowContext extends FlowContext {
  /** Origins of the paper and market data hosts. */
  paperOrigin: string;
  dataOrigin: string;
  /** A key pair of a paper account (`platform brokerage keys create`). */
  keyId: string;
  secretKey: string;
}

export interface ChainstatsFlowContext extends FlowContext {
  apiKey: string;
  chainId: number;
}
