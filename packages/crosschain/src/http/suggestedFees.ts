/**
 * `GET /suggested-fees`: the anchor's fee quote (same parameters, same response keys). The route parses the
 * query, asks `services/suggestedFees.ts` for the quote, and maps its typed errors to HTTP answers.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SuggestedFeesService } from "../services/suggestedFees.ts";
import { withRequestId } from "./errorFormat.ts";
import { quotesTag } from "./openapiTags.ts";
import { throwQuoteErrorAsHttp } from "./quoteHttpErrors.ts";
import { AddressParam, ChainIdParam, ErrorBody, EXAMPLE_REQUEST_ID, TokenSchema, UnauthorizedBody } from "./schemas.ts";

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

/** The anchor's example quote (1 WETH from chain 1 to chain 10; `domain/fees/feeQuote.test.ts` reproduces it). */
const QUOTE_EXAMPLE = {
  estimatedFillTimeSec: 2,
  capitalFeePct: "78750000000001",
  capitalFeeTotal: "78750000000001",
  relayGasFeePct: "155024308002",
  relayGasFeeTotal: "155024308002",
  relayFeePct: "78905024308003",
  relayFeeTotal: "78905024308003",
  lpFeePct: "0",
  timestamp: "1754342087",
  isAmountTooLow: false,
  quoteBlock: "23070320",
  exclusiveRelayer: "0x394311A6Aaa0D8E3411D8b62DE4578D41322d1bD",
  exclusivityDeadline: 1754342267,
  spokePoolAddress: "0x5c7BCd6E7De5423a257D81B442095A1a6ced35C5",
  destinationSpokePoolAddress: "0x6f26Bf09B1C792e3228e5467807a900A503c0281",
  totalRelayFee: { pct: "78905024308003", total: "78905024308003" },
  relayerCapitalFee: { pct: "78750000000001", total: "78750000000001" },
  relayerGasFee: { pct: "155024308002", total: "155024308002" },
  lpFee: { pct: "0", total: "0" },
  limits: {
    minDeposit: "134862494200912",
    maxDeposit: "1661211802629989209324",
    maxDepositInstant: "231397155893653275446",
    maxDepositShortDelay: "1661211802629989209324",
    recommendedDepositInstant: "231397155893653275446",
  },
  fillDeadline: "1754353917",
  outputAmount: "999921094975691997",
  inputToken: { address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", symbol: "ETH", decimals: 18, chainId: 1 },
  outputToken: { address: "0x4200000000000000000000000000000000000006", symbol: "ETH", decimals: 18, chainId: 10 },
  id: EXAMPLE_REQUEST_ID,
};

export const SuggestedFeesResponseSchema = Type.Object(
  {
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
    inputToken: TokenSchema,
    outputToken: TokenSchema,
    id: Type.String(),
  },
  { examples: [QUOTE_EXAMPLE] },
);

export function registerSuggestedFeesRoute(app: HttpServer, suggestedFees: SuggestedFeesService) {
  app.get(
    "/suggested-fees",
    {
      schema: {
        operationId: "getSuggestedFees",
        tags: [quotesTag.name],
        summary: "Suggested fees and limits for a deposit",
        description:
          "The relayer fee (capital + destination gas), LP fee, limits, quote timestamp, fill deadline and exclusivity " +
          "to put in a SpokePool deposit. pct values are 1e18-scaled (1e18 = 100%); amounts are in the input token's " +
          "smallest unit; outputAmount = amount − totalRelayFee.total (in the output token's decimals). " +
          "Errors: AMOUNT_TOO_HIGH (amount > limits.maxDeposit), AMOUNT_TOO_LOW (amount < limits.minDeposit without " +
          "skipAmountLimit=true), ROUTE_NOT_ENABLED, INVALID_PARAM, MISSING_PARAM, SIMULATION_ERROR (message fills).",
        querystring: SuggestedFeesQuery,
        response: {
          200: SuggestedFeesResponseSchema,
          400: ErrorBody({ status: 400, code: "AMOUNT_TOO_LOW", message: "Sent amount is too low relative to fees" }),
          401: UnauthorizedBody,
          502: ErrorBody({
            status: 502,
            code: "UPSTREAM_RPC_ERROR",
            message: "Could not check the recipient on chain 10: its RPC is not answering; try again later",
          }),
          503: ErrorBody({
            status: 503,
            code: "UPSTREAM_RPC_ERROR",
            message: "Chain 10 state is not available yet; try again shortly",
          }),
        },
      },
    },
    async (request) => withRequestId(request, await suggestedFees.quote(request.query).catch(throwQuoteErrorAsHttp)),
  );
}
