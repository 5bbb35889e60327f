/**
 * `GET /suggested-fees`: the anchor's fee quote (same parameters, same response keys). The route parses the
 * query, asks `services/suggestedFees.ts` for the quote, and maps its typed errors to HTTP answers.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { ChainNotAnsweringError, ChainStateUnavailableError, QuoteRefusedError } from "../domain/quoteErrors.ts";
import type { SuggestedFeesService } from "../services/suggestedFees.ts";
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

/** Rethrows a quote error as its HTTP answer; anything else stays an unexpected error (500). */
function throwAsHttpError(error: unknown): never {
  if (error instanceof QuoteRefusedError) throw new HttpError(400, error.message, error.code, error.param);
  if (error instanceof ChainNotAnsweringError) throw new HttpError(502, error.message, "UPSTREAM_RPC_ERROR");
  if (error instanceof ChainStateUnavailableError) throw new HttpError(503, error.message, "UPSTREAM_RPC_ERROR");
  throw error;
}

export function registerSuggestedFeesRoute(app: HttpServer, suggestedFees: SuggestedFeesService) {
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
    async (request) => withRequestId(request, await suggestedFees.quote(request.query).catch(throwAsHttpError)),
  );
}
