/**
 * The fee quote of a deposit (`/suggested-fees`): the anchor's quote, from the chain-state cache; a plain quote
 * does no RPC. Only a quote with a `message` may touch the destination chain (is the recipient a contract,
 * what does the fill with that message cost), each answer cached. Refusals are typed errors
 * (`domain/quoteErrors.ts`); the route maps them to HTTP.
 *
 * Check order follows the anchor: parameters → route → decimals → message → quote timestamp → amount limits
 * (AMOUNT_TOO_HIGH above `maxDeposit`, AMOUNT_TOO_LOW below `minDeposit` unless `skipAmountLimit=true`).
 */
import type { SpokeChain, SpokeToken } from "../deployments.ts";
import { resolveCapitalCostConfig } from "../domain/fees/capitalFee.ts";
import { validateQuoteTimestamp } from "../domain/fees/deadlines.ts";
import {
  computeLimitsResponse,
  computeSuggestedFees,
  type SuggestedFeesInput,
  type SuggestedFeesResponse,
  type TokenInfo,
  ZERO_ADDRESS,
} from "../domain/fees/feeQuote.ts";
import { convertDecimals, WAD } from "../domain/fees/fixedPoint.ts";
import { quotedMessageFillGas } from "../domain/fees/gasFee.ts";
import { DEFAULT_LIMITS_BUFFER_MULTIPLIER, type LimitsResponseJson } from "../domain/fees/limits.ts";
import {
  ChainNotAnsweringError,
  ChainStateUnavailableError,
  invalidParam,
  QuoteRefusedError,
} from "../domain/quoteErrors.ts";
import { isMessageEmpty } from "../domain/relayHash.ts";
import { type RouteRecord, wrappedNativeOf } from "../quotes/enabledRoutes.ts";
import { chainStates } from "../quotes/freshChainState.ts";
import { lpPoolFor } from "../quotes/hubPool.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";

/** A quote request: the `/suggested-fees` query, parsed (amounts and addresses still as text). */
export interface SuggestedFeesRequest {
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
}

const missing = (message: string, param: string) => new QuoteRefusedError(message, "MISSING_PARAM", param);
const routeNotEnabled = () => new QuoteRefusedError("Route is not enabled.", "ROUTE_NOT_ENABLED");
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
function resolveRoute(quotes: QuoteContext, q: Omit<SuggestedFeesRequest, "amount">): ResolvedRoute {
  if (q.originChainId !== undefined && q.originChainId === q.destinationChainId) {
    throw invalidParam("Origin and destination chains cannot be the same", "destinationChainId");
  }
  const inputAddress = q.inputToken ?? q.token;
  if (!inputAddress || (!q.token && !q.outputToken)) {
    throw missing(
      "Query param 'token' or 'inputToken' and 'outputToken' must be provided",
      inputAddress ? "outputToken" : "inputToken",
    );
  }
  const inputParam = q.inputToken ? "inputToken" : "token";
  const byId = new Map(quotes.chains.map((c) => [c.chainId, c]));
  const destination = byId.get(q.destinationChainId);

  let originChainId = q.originChainId;
  if (originChainId === undefined) {
    // Resolve the origin from the enabled routes that start with this token and end on the destination.
    const candidates = new Set(
      quotes.routes
        .filter({
          originToken: inputAddress,
          destinationChainId: q.destinationChainId,
          destinationToken: q.outputToken,
        })
        .map((r) => r.originChainId),
    );
    if (candidates.size === 0) {
      if (!quotes.chains.some((c) => tokenOn(c, inputAddress))) {
        throw invalidParam("Unsupported token address", inputParam);
      }
      throw routeNotEnabled();
    }
    if (candidates.size > 1) {
      throw invalidParam(
        "More than one route is enabled for the provided inputs causing ambiguity. Please specify the originChainId.",
        "originChainId",
      );
    }
    originChainId = [...candidates][0] as number;
  }
  const origin = byId.get(originChainId);
  const input = tokenOn(origin, inputAddress);
  if (!origin || !input) {
    throw invalidParam(
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
      quotes.routes.filter({ originChainId, originToken: input.address, destinationChainId: q.destinationChainId })[0]
        ?.destinationToken ??
      destination?.tokens.find((t) => t.symbol.toUpperCase() === input.symbol.toUpperCase())?.address;
  }
  const output = outputAddress ? tokenOn(destination, outputAddress) : undefined;
  if (!destination || !output) {
    throw invalidParam(
      destination
        ? "Unsupported token address on given destination chain"
        : `Unsupported token address on given destination chain (chain ${q.destinationChainId} has no SpokePool on this service)`,
      q.outputToken ? "outputToken" : inputParam,
    );
  }

  if (q.isNative) {
    const native = wrappedNativeOf(origin);
    if (!native || lower(native.token.address) !== lower(input.address)) {
      throw invalidParam(
        "isNative=true requires inputToken to be the wrapped native token of the origin chain",
        "isNative",
      );
    }
  }
  const route = quotes.routes.find({
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    inputToken: input.address,
    outputToken: output.address,
    isNative: q.isNative ? true : undefined,
  });
  if (!route) throw routeNotEnabled();
  return { origin, destination, input, output, route };
}

/** A `/limits` request: the quote's parameters, `amount` optional (default one whole input token, as the anchor). */
export type LimitsRequest = Omit<SuggestedFeesRequest, "amount" | "timestamp" | "skipAmountLimit"> & {
  amount?: string;
};

/**
 * Everything the fee model needs for the request, from the cached chain state (a message fill may ask the
 * destination chain): what `/suggested-fees` and `/limits` both compute from.
 */
async function feeQuoteInput(
  quotes: QuoteContext,
  q: LimitsRequest & Pick<SuggestedFeesRequest, "timestamp" | "skipAmountLimit">,
): Promise<SuggestedFeesInput> {
  if (q.amount !== undefined && BigInt(q.amount) < 1n) {
    throw invalidParam("Amount must be a positive integer (minimum 1)", "amount");
  }
  const { origin, destination, input, output, route } = resolveRoute(quotes, q);
  const amount = q.amount === undefined ? 10n ** BigInt(input.decimals) : BigInt(q.amount);

  if (input.decimals !== output.decimals && q.allowUnmatchedDecimals !== true) {
    throw invalidParam(
      `Decimals of input token (${input.decimals}) and output token (${output.decimals}) do not match. ` +
        "Set the query param 'allowUnmatchedDecimals=true' to quote this route.",
      "allowUnmatchedDecimals",
    );
  }

  const { originState, destinationState } = await chainStates(quotes, origin.chainId, destination.chainId);
  const relayer = quotes.relayerAddress;
  const relayerBalance = convertDecimals(
    destinationState.relayerBalances.get(lower(output.address)) ?? 0n,
    output.decimals,
    input.decimals,
  );

  // Gas units of the fill: the cached simulation, or (message) a simulation of this very fill with a markup.
  let nativeGasUnits = destinationState.fillGas.get(lower(output.address))?.gasUnits;
  const message = q.message ?? "";
  if (!isMessageEmpty(message)) {
    if (!/^0x[0-9a-fA-F]*$/.test(message)) throw invalidParam("Message must be a hex string", "message");
    if (message.length % 2 !== 0) throw invalidParam("Message must be an even hex string", "message");
    if (!q.recipient) throw invalidParam("A recipient contract is required when a message is provided", "recipient");
    const isContract = await quotes.cache.isContract(destination.chainId, q.recipient).catch((error) => {
      // The RPC's own error can carry its URL (and a key in it): the message stays ours (the cache logs the cause).
      throw new ChainNotAnsweringError(
        `Could not check the recipient on chain ${destination.chainId}: its RPC is not answering; try again later`,
        destination.chainId,
        { cause: error },
      );
    });
    if (!isContract) throw invalidParam("Recipient must be a contract when a message is provided", "recipient");
    const outputAmount = convertDecimals(amount, input.decimals, output.decimals);
    const simulatedRelayer = q.relayer ?? relayer;
    if (!q.relayer || (relayer && lower(q.relayer) === lower(relayer))) {
      if (relayerBalance < amount) {
        throw invalidParam(
          `Relayer Address (${simulatedRelayer ?? "none"}) doesn't have enough funds to support this deposit`,
          "relayer",
        );
      }
    }
    try {
      const simulatedGas = await quotes.cache.estimateFillGas({
        destinationChainId: destination.chainId,
        outputToken: output.address,
        outputAmount,
        recipient: q.recipient,
        message: message as `0x${string}`,
        relayer: simulatedRelayer,
        originChainId: origin.chainId,
      });
      nativeGasUnits = quotedMessageFillGas(simulatedGas);
    } catch (error) {
      throw new QuoteRefusedError(
        `Simulating the fill of this deposit (message to ${q.recipient}) failed: ${(error as Error).message.split("\n")[0]}`,
        "SIMULATION_ERROR",
      );
    }
  }
  if (nativeGasUnits === undefined) {
    throw new ChainStateUnavailableError(
      `No fill gas estimate yet for ${output.symbol} on chain ${destination.chainId}`,
      destination.chainId,
    );
  }

  // Quote timestamp: the origin chain's latest block, or the caller's (validated against the head's time).
  const elapsedSec = Math.max(0, Math.floor((Date.now() - originState.updatedAt) / 1000));
  let quoteTimestamp = originState.blockTimestamp;
  if (q.timestamp !== undefined) {
    const check = validateQuoteTimestamp(
      q.timestamp,
      originState.blockTimestamp + elapsedSec,
      quotes.settings.quoteTimestampMaxAgeSec,
    );
    if (!check.ok) throw invalidParam(check.error.message, "timestamp");
    quoteTimestamp = check.timestamp;
  }

  // Prices: the input asset in the destination's native coin and in USD.
  const sameAssetOnDestination = destination.tokens.find((t) => t.symbol.toUpperCase() === input.symbol.toUpperCase());
  const tokenPriceInNative =
    (sameAssetOnDestination && destinationState.prices.inNative.get(lower(sameAssetOnDestination.address))) ||
    originState.prices.inNative.get(lower(input.address));
  if (!tokenPriceInNative) {
    throw new ChainStateUnavailableError(
      `No price for ${input.symbol} on chain ${destination.chainId}`,
      destination.chainId,
    );
  }
  const tokenPriceUsd =
    (sameAssetOnDestination && destinationState.prices.usd.get(lower(sameAssetOnDestination.address))) ||
    originState.prices.usd.get(lower(input.address));

  const capitalCostConfig = resolveCapitalCostConfig(
    quotes.settings.capitalCostConfigs,
    route.originTokenSymbol,
    origin.chainId,
    destination.chainId,
  ) ??
    resolveCapitalCostConfig(quotes.settings.capitalCostConfigs, input.symbol, origin.chainId, destination.chainId) ?? {
      lowerBound: WAD / 10_000n,
      upperBound: WAD / 10_000n,
      cutoff: WAD,
      decimals: input.decimals,
    };

  const multiplier = quotes.settings.limitsBufferMultiplier ?? DEFAULT_LIMITS_BUFFER_MULTIPLIER;
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

  return {
    amount,
    inputToken,
    outputToken,
    allowUnmatchedDecimals: q.allowUnmatchedDecimals === true,
    skipAmountLimit: q.skipAmountLimit === true,
    ...lpPoolFor(quotes.cache.snapshot(), quotes.chains, input.symbol, origin.chainId, destination.chainId),
    capitalCostConfig,
    gas: { nativeGasUnits, gasPrice: destinationState.gasPrice, tokenPriceInNative },
    limits: {
      fullRelayerBalances: [relayerBalance],
      bufferMultiplier: quotes.settings.limitsBufferMultiplier,
    },
    tokenPriceUsd: tokenPriceUsd || undefined,
    minDepositUsd: quotes.settings.minDepositUsd,
    quoteTimestamp,
    quoteBlock: originState.blockNumber,
    fillDeadlineBufferSec: quotes.settings.fillDeadlineBufferSec,
    exclusivity:
      canFillInstantly && quotes.settings.exclusivityPeriodSec > 0
        ? { exclusiveRelayer: relayer, exclusivityPeriodSec: quotes.settings.exclusivityPeriodSec }
        : { exclusiveRelayer: ZERO_ADDRESS, exclusivityPeriodSec: 0 },
    fillTime: quotes.settings.fillTime ?? quotes.observedFillTimes.config(),
    spokePoolAddress: origin.spokePool,
    destinationSpokePoolAddress: destination.spokePool,
  };
}

async function quoteSuggestedFees(quotes: QuoteContext, q: SuggestedFeesRequest): Promise<SuggestedFeesResponse> {
  const result = computeSuggestedFees(await feeQuoteInput(quotes, q));
  if (!result.ok) throw new QuoteRefusedError(result.error.message, result.error.code, result.error.param);
  return result.response;
}

/** The anchor's `/limits`: the limits `/suggested-fees` returns for the same deposit, with their inputs. */
async function transferLimits(quotes: QuoteContext, q: LimitsRequest): Promise<LimitsResponseJson> {
  if (q.message !== undefined && q.amount === undefined) {
    throw missing("Parameter 'amount' must be defined when 'message' is defined", "amount");
  }
  return computeLimitsResponse(await feeQuoteInput(quotes, { ...q, skipAmountLimit: true }));
}

export function createSuggestedFeesService(quotes: QuoteContext) {
  return {
    /**
     * The quote of a deposit, from the cached chain state (a message fill may ask the destination chain).
     * @throws {QuoteErrorType} for every refusal: `QuoteRefusedError`, `ChainStateUnavailableError`,
     * `ChainNotAnsweringError`.
     */
    quote: (request: SuggestedFeesRequest): Promise<SuggestedFeesResponse> => quoteSuggestedFees(quotes, request),
    /**
     * The transfer limits of a deposit (the anchor's `/limits`), never refused for its amount.
     * @throws {QuoteErrorType} as `quote`, but never AMOUNT_TOO_HIGH or AMOUNT_TOO_LOW.
     */
    limits: (request: LimitsRequest): Promise<LimitsResponseJson> => transferLimits(quotes, request),
  };
}

export type SuggestedFeesService = ReturnType<typeof createSuggestedFeesService>;
