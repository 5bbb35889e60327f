/**
 * `GET /suggested-fees`: the anchor's fee quote (same parameters, same response keys) from the chain-state
 * cache; a plain quote does no RPC. Only a quote with a `message` may touch the destination chain (is the
 * recipient a contract, what does the fill with that message cost), each answer cached.
 *
 * Check order follows the anchor: parameters → route → decimals → message → quote timestamp → amount limits
 * (AMOUNT_TOO_HIGH above `maxDeposit`, AMOUNT_TOO_LOW below `minDeposit` unless `skipAmountLimit=true`).
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SpokeChain, SpokeToken } from "../deployments.ts";
import { resolveCapitalCostConfig } from "../domain/fees/capitalFee.ts";
import { validateQuoteTimestamp } from "../domain/fees/deadlines.ts";
import { convertDecimals, WAD } from "../domain/fees/fixedPoint.ts";
import { DEFAULT_LIMITS_BUFFER_MULTIPLIER } from "../domain/fees/limits.ts";
import {
  computeSuggestedFees,
  type SuggestedFeesResponse,
  type TokenInfo,
  ZERO_ADDRESS,
} from "../domain/fees/suggestedFees.ts";
import { isMessageEmpty } from "../domain/relayHash.ts";
import type { ChainState } from "../quotes/chainStateCache.ts";
import { type RouteRecord, wrappedNativeOf } from "../quotes/enabledRoutes.ts";
import { lpPoolFor } from "../quotes/hubPool.ts";
import type { QuoteServices } from "../quotes/quoteServices.ts";
import { withRequestId } from "./errorFormat.ts";
import { AddressParam, ChainIdParam, ErrorBody } from "./schemas.ts";

/** Longest accepted `message` (hex characters, 0x included); Node refuses request heads over 16 KB anyway (431). */
export const MAX_MESSAGE_LENGTH = 14_000;

export const SuggestedFeesQuery = Type.Object({
  amount: Type.String({
    pattern: "^[0-9]{1,78}$",
    description: "Amount to bridge in the input token's smallest unit (decimal integer, minimum 1).",
  }),
  inputToken: Type.Optional(AddressParam("Token on the origin chain (for the native coin, the wrapped token).")),
  outputToken: Type.Optional(AddressParam("Token on the destination chain; required with inputToken.")),
  token: Type.Optional(AddressParam("Legacy alias of inputToken; the output token is then the same asset.")),
  originChainId: Type.Optional(
    ChainIdParam("Origin chain; may be omitted when the input token identifies a single enabled origin chain."),
  ),
  destinationChainId: ChainIdParam("Destination chain."),
  timestamp: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 4_294_967_295,
      description:
        "Quote timestamp (seconds): at most 10 minutes before the origin chain's current block time and not after it. " +
        "Default: the latest block time.",
    }),
  ),
  skipAmountLimit: Type.Optional(
    Type.Boolean({ description: "Quote amounts below minDeposit (isAmountTooLow: true)." }),
  ),
  message: Type.Optional(
    Type.String({
      maxLength: MAX_MESSAGE_LENGTH,
      description: "Hex calldata for the recipient contract's message handler; needs a contract recipient.",
    }),
  ),
  recipient: Type.Optional(AddressParam("Recipient on the destination chain (a contract when message is set).")),
  relayer: Type.Optional(AddressParam("Relayer used to simulate the fill (affects the gas fee of message fills).")),
  allowUnmatchedDecimals: Type.Optional(
    Type.Boolean({ description: "Required (true) when input and output tokens have different decimals." }),
  ),
  isNative: Type.Optional(Type.Boolean({ description: "The deposit sends the native coin (inputToken = wrapped)." })),
});

const FeePair = Type.Object({ pct: Type.String(), total: Type.String() });
const QuoteToken = Type.Object({
  address: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  chainId: Type.Integer(),
});

export const SuggestedFeesResponseSchema = Type.Object({
  estimatedFillTimeSec: Type.Number(),
  capitalFeePct: Type.String(),
  capitalFeeTotal: Type.String(),
  relayGasFeePct: Type.String(),
  relayGasFeeTotal: Type.String(),
  relayFeePct: Type.String(),
  relayFeeTotal: Type.String(),
  lpFeePct: Type.String(),
  timestamp: Type.String(),
  isAmountTooLow: Type.Boolean(),
  quoteBlock: Type.String(),
  exclusiveRelayer: Type.String(),
  exclusivityDeadline: Type.Integer(),
  spokePoolAddress: Type.String(),
  destinationSpokePoolAddress: Type.String(),
  totalRelayFee: FeePair,
  relayerCapitalFee: FeePair,
  relayerGasFee: FeePair,
  lpFee: FeePair,
  limits: Type.Object({
    minDeposit: Type.String(),
    maxDeposit: Type.String(),
    maxDepositInstant: Type.String(),
    maxDepositShortDelay: Type.String(),
    recommendedDepositInstant: Type.String(),
  }),
  fillDeadline: Type.String(),
  outputAmount: Type.String(),
  inputToken: QuoteToken,
  outputToken: QuoteToken,
  id: Type.String(),
});

type Query = {
  amount: string;
  inputToken?: string;
  outputToken?: string;
  token?: string;
  originChainId?: number;
  destinationChainId: number;
  timestamp?: number;
  skipAmountLimit?: boolean;
  message?: string;
  recipient?: string;
  relayer?: string;
  allowUnmatchedDecimals?: boolean;
  isNative?: boolean;
};

const invalid = (message: string, param?: string) => new HttpError(400, message, "INVALID_PARAM", param);
const missing = (message: string, param: string) => new HttpError(400, message, "MISSING_PARAM", param);
const unavailable = (message: string) => new HttpError(503, message, "UPSTREAM_RPC_ERROR");
const lower = (a: string) => a.toLowerCase();
const tokenOn = (chain: SpokeChain | undefined, address: string): SpokeToken | undefined =>
  chain?.tokens.find((t) => lower(t.address) === lower(address));

interface ResolvedRoute {
  origin: SpokeChain;
  destination: SpokeChain;
  input: SpokeToken;
  output: SpokeToken;
  route: RouteRecord;
}

/** Chains, tokens and the enabled route of the request (the anchor's validateChainAndTokenParams). */
function resolveRoute(services: QuoteServices, q: Query): ResolvedRoute {
  if (q.originChainId !== undefined && q.originChainId === q.destinationChainId) {
    throw invalid("Origin and destination chains cannot be the same", "destinationChainId");
  }
  const inputAddress = q.inputToken ?? q.token;
  if (!inputAddress || (!q.token && !q.outputToken)) {
    throw missing(
      "Query param 'token' or 'inputToken' and 'outputToken' must be provided",
      inputAddress ? "outputToken" : "inputToken",
    );
  }
  const inputParam = q.inputToken ? "inputToken" : "token";
  const byId = new Map(services.chains.map((c) => [c.chainId, c]));
  const destination = byId.get(q.destinationChainId);

  let originChainId = q.originChainId;
  if (originChainId === undefined) {
    // Resolve the origin from the enabled routes that start with this token and end on the destination.
    const candidates = new Set(
      services.routes
        .filter({
          originToken: inputAddress,
          destinationChainId: q.destinationChainId,
          destinationToken: q.outputToken,
        })
        .map((r) => r.originChainId),
    );
    if (candidates.size === 0) {
      if (!services.chains.some((c) => tokenOn(c, inputAddress))) {
        throw invalid("Unsupported token address", inputParam);
      }
      throw new HttpError(400, "Route is not enabled.", "ROUTE_NOT_ENABLED");
    }
    if (candidates.size > 1) {
      throw invalid(
        "More than one route is enabled for the provided inputs causing ambiguity. Please specify the originChainId.",
        "originChainId",
      );
    }
    originChainId = [...candidates][0] as number;
  }
  const origin = byId.get(originChainId);
  const input = tokenOn(origin, inputAddress);
  if (!origin || !input) {
    throw invalid(
      origin
        ? "Unsupported token on given origin chain"
        : `Unsupported token on given origin chain (chain ${originChainId} has no SpokePool on this service)`,
      inputParam,
    );
  }
  let outputAddress = q.outputToken;
  if (!outputAddress) {
    // Legacy `token`: the same asset on the destination (the enabled route from this token, else same symbol).
    outputAddress =
      services.routes.filter({ originChainId, originToken: input.address, destinationChainId: q.destinationChainId })[0]
        ?.destinationToken ??
      destination?.tokens.find((t) => t.symbol.toUpperCase() === input.symbol.toUpperCase())?.address;
  }
  const output = outputAddress ? tokenOn(destination, outputAddress) : undefined;
  if (!destination || !output) {
    throw invalid(
      destination
        ? "Unsupported token address on given destination chain"
        : `Unsupported token address on given destination chain (chain ${q.destinationChainId} has no SpokePool on this service)`,
      q.outputToken ? "outputToken" : inputParam,
    );
  }

  if (q.isNative) {
    const native = wrappedNativeOf(origin);
    if (!native || lower(native.token.address) !== lower(input.address)) {
      throw invalid("isNative=true requires inputToken to be the wrapped native token of the origin chain", "isNative");
    }
  }
  const route = services.routes.find({
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    inputToken: input.address,
    outputToken: output.address,
    isNative: q.isNative ? true : undefined,
  });
  if (!route) throw new HttpError(400, "Route is not enabled.", "ROUTE_NOT_ENABLED");
  return { origin, destination, input, output, route };
}

function freshState(services: QuoteServices, chainId: number, now: number): ChainState {
  const state = services.cache.snapshot().chains.get(chainId);
  if (!state) throw unavailable(`Chain ${chainId} state is not available yet; try again shortly`);
  if (now - state.updatedAt > services.settings.maxStateAgeMs) {
    throw unavailable(`Chain ${chainId} state is stale (its RPC is not answering); try again later`);
  }
  return state;
}

/** Chain state of both ends: from the cache; only a cold cache (first requests after a start) waits for it. */
async function chainStates(services: QuoteServices, originChainId: number, destinationChainId: number) {
  const chains = services.cache.snapshot().chains;
  if (!chains.has(originChainId) || !chains.has(destinationChainId)) await services.cache.ready(5000);
  const now = Date.now();
  return {
    originState: freshState(services, originChainId, now),
    destinationState: freshState(services, destinationChainId, now),
  };
}

/** Compute a quote (throws HttpError for every refusal). */
export async function quoteSuggestedFees(services: QuoteServices, q: Query): Promise<SuggestedFeesResponse> {
  const amount = BigInt(q.amount);
  if (amount < 1n) throw invalid("Amount must be a positive integer (minimum 1)", "amount");
  const { origin, destination, input, output, route } = resolveRoute(services, q);

  if (input.decimals !== output.decimals && q.allowUnmatchedDecimals !== true) {
    throw invalid(
      `Decimals of input token (${input.decimals}) and output token (${output.decimals}) do not match. ` +
        "Set the query param 'allowUnmatchedDecimals=true' to quote this route.",
      "allowUnmatchedDecimals",
    );
  }

  const { originState, destinationState } = await chainStates(services, origin.chainId, destination.chainId);
  const relayer = services.relayerAddress;
  const relayerBalance = convertDecimals(
    destinationState.relayerBalances.get(lower(output.address)) ?? 0n,
    output.decimals,
    input.decimals,
  );

  // Gas units of the fill: the cached simulation, or (message) a simulation of this very fill.
  let nativeGasUnits = destinationState.fillGas.get(lower(output.address))?.gasUnits;
  const message = q.message ?? "";
  if (!isMessageEmpty(message)) {
    if (!/^0x[0-9a-fA-F]*$/.test(message)) throw invalid("Message must be a hex string", "message");
    if (message.length % 2 !== 0) throw invalid("Message must be an even hex string", "message");
    if (!q.recipient) throw invalid("A recipient contract is required when a message is provided", "recipient");
    const isContract = await services.cache.isContract(destination.chainId, q.recipient).catch(() => {
      // The RPC's own error can carry its URL (and a key in it): the message stays ours (the cache logs the cause).
      throw new HttpError(
        502,
        `Could not check the recipient on chain ${destination.chainId}: its RPC is not answering; try again later`,
        "UPSTREAM_RPC_ERROR",
      );
    });
    if (!isContract) throw invalid("Recipient must be a contract when a message is provided", "recipient");
    const outputAmount = convertDecimals(amount, input.decimals, output.decimals);
    const simulatedRelayer = q.relayer ?? relayer;
    if (!q.relayer || (relayer && lower(q.relayer) === lower(relayer))) {
      if (relayerBalance < amount) {
        throw invalid(
          `Relayer Address (${simulatedRelayer ?? "none"}) doesn't have enough funds to support this deposit`,
          "relayer",
        );
      }
    }
    try {
      nativeGasUnits = await services.cache.estimateFillGas({
        destinationChainId: destination.chainId,
        outputToken: output.address,
        outputAmount,
        recipient: q.recipient,
        message: message as `0x${string}`,
        relayer: simulatedRelayer,
        originChainId: origin.chainId,
      });
    } catch (error) {
      throw new HttpError(
        400,
        `Simulating the fill of this deposit (message to ${q.recipient}) failed: ${(error as Error).message.split("\n")[0]}`,
        "SIMULATION_ERROR",
      );
    }
  }
  if (nativeGasUnits === undefined)
    throw unavailable(`No fill gas estimate yet for ${output.symbol} on chain ${destination.chainId}`);

  // Quote timestamp: the origin chain's latest block, or the caller's (validated against the head's time).
  const elapsedSec = Math.max(0, Math.floor((Date.now() - originState.updatedAt) / 1000));
  let quoteTimestamp = originState.blockTimestamp;
  if (q.timestamp !== undefined) {
    const check = validateQuoteTimestamp(
      q.timestamp,
      originState.blockTimestamp + elapsedSec,
      services.settings.quoteTimestampMaxAgeSec,
    );
    if (!check.ok) throw invalid(check.error.message, "timestamp");
    quoteTimestamp = check.timestamp;
  }

  // Prices: the input asset in the destination's native coin and in USD.
  const sameAssetOnDestination = destination.tokens.find((t) => t.symbol.toUpperCase() === input.symbol.toUpperCase());
  const tokenPriceInNative =
    (sameAssetOnDestination && destinationState.prices.inNative.get(lower(sameAssetOnDestination.address))) ||
    originState.prices.inNative.get(lower(input.address));
  if (!tokenPriceInNative) throw unavailable(`No price for ${input.symbol} on chain ${destination.chainId}`);
  const tokenPriceUsd =
    (sameAssetOnDestination && destinationState.prices.usd.get(lower(sameAssetOnDestination.address))) ||
    originState.prices.usd.get(lower(input.address));

  const capitalCostConfig = resolveCapitalCostConfig(
    services.settings.capitalCostConfigs,
    route.originTokenSymbol,
    origin.chainId,
    destination.chainId,
  ) ??
    resolveCapitalCostConfig(
      services.settings.capitalCostConfigs,
      input.symbol,
      origin.chainId,
      destination.chainId,
    ) ?? {
      lowerBound: WAD / 10_000n,
      upperBound: WAD / 10_000n,
      cutoff: WAD,
      decimals: input.decimals,
    };

  const multiplier = services.settings.limitsBufferMultiplier ?? DEFAULT_LIMITS_BUFFER_MULTIPLIER;
  const canFillInstantly = relayer !== undefined && (relayerBalance * multiplier) / WAD >= amount;
  const symbolOf = (t: SpokeToken, side: "origin" | "destination") =>
    route.isNative ? (side === "origin" ? route.originTokenSymbol : route.destinationTokenSymbol) : t.symbol;
  const inputToken: TokenInfo = {
    address: input.address,
    symbol: symbolOf(input, "origin"),
    decimals: input.decimals,
    chainId: origin.chainId,
  };
  const outputToken: TokenInfo = {
    address: output.address,
    symbol: symbolOf(output, "destination"),
    decimals: output.decimals,
    chainId: destination.chainId,
  };

  const result = computeSuggestedFees({
    amount,
    inputToken,
    outputToken,
    allowUnmatchedDecimals: q.allowUnmatchedDecimals === true,
    skipAmountLimit: q.skipAmountLimit === true,
    ...lpPoolFor(services.cache.snapshot(), services.chains, input.symbol, origin.chainId, destination.chainId),
    capitalCostConfig,
    gas: { nativeGasUnits, gasPrice: destinationState.gasPrice, tokenPriceInNative },
    limits: {
      fullRelayerBalances: [relayerBalance],
      bufferMultiplier: services.settings.limitsBufferMultiplier,
    },
    tokenPriceUsd: tokenPriceUsd || undefined,
    minDepositUsd: services.settings.minDepositUsd,
    quoteTimestamp,
    quoteBlock: originState.blockNumber,
    fillDeadlineBufferSec: services.settings.fillDeadlineBufferSec,
    exclusivity:
      canFillInstantly && services.settings.exclusivityPeriodSec > 0
        ? { exclusiveRelayer: relayer, exclusivityPeriodSec: services.settings.exclusivityPeriodSec }
        : { exclusiveRelayer: ZERO_ADDRESS, exclusivityPeriodSec: 0 },
    fillTime: services.settings.fillTime ?? services.observedFillTimes.config(),
    spokePoolAddress: origin.spokePool,
    destinationSpokePoolAddress: destination.spokePool,
  });
  if (!result.ok) throw new HttpError(400, result.error.message, result.error.code, result.error.param);
  return result.response;
}

export function registerSuggestedFeesRoute(app: HttpServer, services: QuoteServices) {
  app.get(
    "/suggested-fees",
    {
      schema: {
        tags: ["Quotes"],
        summary: "Suggested fees and limits for a deposit",
        description:
          "The relayer fee (capital + destination gas), LP fee, limits, quote timestamp, fill deadline and exclusivity " +
          "to put in a SpokePool deposit. pct values are 1e18-scaled (1e18 = 100%); amounts are in the input token's " +
          "smallest unit; outputAmount = amount − totalRelayFee.total (in the output token's decimals). " +
          "Errors: AMOUNT_TOO_HIGH (amount > limits.maxDeposit), AMOUNT_TOO_LOW (amount < limits.minDeposit without " +
          "skipAmountLimit=true), ROUTE_NOT_ENABLED, INVALID_PARAM, MISSING_PARAM, SIMULATION_ERROR (message fills).",
        querystring: SuggestedFeesQuery,
        response: { 200: SuggestedFeesResponseSchema, 400: ErrorBody, 401: ErrorBody, 502: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => withRequestId(request, await quoteSuggestedFees(services, request.query as Query)),
  );
}
