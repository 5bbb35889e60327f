/**
 * `GET /limits`: the anchor's transfer limits of a deposit (the numbers `/suggested-fees` returns in `limits`),
 * with the relayer fee details, gas cost and HubPool reserves behind them. Same parameters as the fee quote
 * (`amount` optional: one whole input token by default, as the anchor); never refused for its amount.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SuggestedFeesService } from "../services/suggestedFees.ts";
import { withRequestId } from "./errorFormat.ts";
import { quotesTag } from "./openapiTags.ts";
import { throwQuoteErrorAsHttp } from "./quoteHttpErrors.ts";
import { ErrorBody, EXAMPLE_REQUEST_ID, UnauthorizedBody } from "./schemas.ts";
import { SuggestedFeesQuery } from "./suggestedFees.ts";

const {
  timestamp: _timestamp,
  skipAmountLimit: _skip,
  amount: _amount,
  ...quoteParameters
} = SuggestedFeesQuery.properties;

const LimitsQuery = Type.Object({
  ...quoteParameters,
  amount: Type.Optional(
    Type.String({
      pattern: "^[0-9]{1,78}$",
      description: "Amount of the deposit in the input token's smallest unit; default one whole token.",
    }),
  ),
});

/** The anchor's example (WETH from chain 1 to chain 10), with the reserves this service adds as the anchor does. */
const LIMITS_EXAMPLE = {
  minDeposit: "134349011863017",
  maxDeposit: "1659439975009194758428",
  maxDepositInstant: "231397155893653275446",
  maxDepositShortDelay: "1659439975009194758428",
  recommendedDepositInstant: "231397155893653275446",
  relayerFeeDetails: {
    relayFeeTotal: "141442042216",
    relayFeePercent: "141442042216",
    gasFeeTotal: "141442042216",
    gasFeePercent: "141442042216",
    capitalFeeTotal: "0",
    capitalFeePercent: "0",
  },
  gasFeeDetails: {
    nativeGasCost: "137265",
    opStackL1GasCost: "0",
    gasPrice: "1000740",
    tokenGasCost: "137366576100",
  },
  reserves: { liquidReserves: "2074299968761493448035", utilizedReserves: "0" },
  id: EXAMPLE_REQUEST_ID,
};

const Amount = Type.String({ pattern: "^[0-9]+$" });

const LimitsResponse = Type.Object(
  {
    minDeposit: Amount,
    maxDeposit: Amount,
    maxDepositInstant: Amount,
    maxDepositShortDelay: Amount,
    recommendedDepositInstant: Amount,
    relayerFeeDetails: Type.Object({
      relayFeeTotal: Amount,
      relayFeePercent: Amount,
      gasFeeTotal: Amount,
      gasFeePercent: Amount,
      capitalFeeTotal: Amount,
      capitalFeePercent: Amount,
    }),
    gasFeeDetails: Type.Optional(
      Type.Object({ nativeGasCost: Amount, opStackL1GasCost: Amount, gasPrice: Amount, tokenGasCost: Amount }),
    ),
    reserves: Type.Object({ liquidReserves: Amount, utilizedReserves: Amount }),
    id: Type.String(),
  },
  { examples: [LIMITS_EXAMPLE] },
);

export function registerLimitsRoute(app: HttpServer, suggestedFees: SuggestedFeesService) {
  app.get(
    "/limits",
    {
      schema: {
        operationId: "getLimits",
        tags: [quotesTag.name],
        summary: "Transfer limits of a route",
        description:
          "minDeposit, maxDeposit, maxDepositInstant, maxDepositShortDelay and recommendedDepositInstant in the input " +
          "token's smallest unit: the same numbers /suggested-fees returns in `limits` for this deposit (relayer " +
          "balances on the destination × the buffer multiplier, the HubPool's liquid reserves, the fee-derived " +
          "minimum), with relayerFeeDetails, gasFeeDetails and the HubPool reserves (hub-token units) behind them. " +
          "`amount` defaults to one whole input token; with `message`, `amount` is required (MISSING_PARAM). " +
          "Errors as /suggested-fees, except that no amount is refused.",
        querystring: LimitsQuery,
        response: {
          200: LimitsResponse,
          400: ErrorBody({
            status: 400,
            code: "MISSING_PARAM",
            message: "Query param 'token' or 'inputToken' and 'outputToken' must be provided",
            param: "inputToken",
          }),
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
    async (request) => withRequestId(request, await suggestedFees.limits(request.query).catch(throwQuoteErrorAsHttp)),
  );
}
