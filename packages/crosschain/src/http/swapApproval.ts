/**
 * `GET /swap/approval` and `POST /swap/approval` (with embedded actions): the anchor's swap quote. The route
 * parses the request, asks `services/swapApproval.ts` and maps its typed errors to HTTP answers; a GET that
 * carries a body is the anchor's INVALID_METHOD.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import type { SwapApprovalRequest, SwapApprovalService } from "../services/swapApproval.ts";
import { withRequestId } from "./errorFormat.ts";
import { swapsTag } from "./openapiTags.ts";
import { throwQuoteErrorAsHttp } from "./quoteHttpErrors.ts";
import { ErrorBody, UnauthorizedBody } from "./schemas.ts";
import { SwapActionsBody, SwapApprovalQuery, SwapApprovalResponseSchema } from "./swapSchemas.ts";

const responses = {
  200: SwapApprovalResponseSchema,
  400: ErrorBody({
    status: 400,
    code: "SWAP_LIQUIDITY_INSUFFICIENT",
    message: "The pools on chain 10 cannot carry this amount from 0x… to 0x…",
  }),
  401: UnauthorizedBody,
  502: ErrorBody({
    status: 502,
    code: "UPSTREAM_RPC_ERROR",
    message: "Could not read the depositor's allowance and balance on chain 8453: its RPC is not answering",
  }),
  503: ErrorBody({
    status: 503,
    code: "UPSTREAM_RPC_ERROR",
    message: "Chain 10 state is not available yet; try again shortly",
  }),
};

const DESCRIPTION =
  "Everything needed to execute a crosschain transfer that may swap on the way: the route kind " +
  "(bridgeableToBridgeable, anyToBridgeable with an origin swap through SpokePoolPeriphery.swapAndBridge, " +
  "bridgeableToAny with a destination swap run by the MulticallHandler, anyToAny), the steps with their amounts, " +
  "fees (total, totalMax, originGas; pct 1e18-scaled shares of the input's USD value), the depositor's allowance " +
  "and balance, the approvals a short allowance needs, and the transaction to send. Swaps are routed over the " +
  "chains' pools (see /swap/sources). Errors: INVALID_PARAM, AMOUNT_TOO_LOW (fees exceed the input), " +
  "AMOUNT_TOO_HIGH, ROUTE_NOT_ENABLED, SWAP_QUOTE_UNAVAILABLE (no path), SWAP_LIQUIDITY_INSUFFICIENT, " +
  "SIMULATION_ERROR, ABI_ENCODING_ERROR (POST actions), INVALID_METHOD (a GET with a body).";

const hasBody = (request: { headers: Record<string, string | string[] | undefined> }) =>
  Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined;

export function registerSwapApprovalRoutes(app: HttpServer, swaps: SwapApprovalService) {
  app.get(
    "/swap/approval",
    {
      schema: {
        operationId: "getSwapApproval",
        tags: [swapsTag.name],
        summary: "Quote and build a crosschain swap",
        description: DESCRIPTION,
        querystring: SwapApprovalQuery,
        response: responses,
      },
    },
    async (request) => {
      if (hasBody(request)) {
        throw new HttpError(400, "POST method required when request.body is provided", "INVALID_METHOD");
      }
      return withRequestId(
        request,
        await swaps.quote(request.query as SwapApprovalRequest).catch(throwQuoteErrorAsHttp),
      );
    },
  );

  app.post(
    "/swap/approval",
    {
      schema: {
        operationId: "postSwapApproval",
        tags: [swapsTag.name],
        summary: "Quote and build a crosschain swap with embedded actions",
        description: `${DESCRIPTION} The body's actions run on the destination chain right after the swap, through the MulticallHandler; an argument with populateDynamically takes the handler's balance of balanceSourceToken at that moment.`,
        querystring: SwapApprovalQuery,
        body: SwapActionsBody,
        response: responses,
      },
    },
    async (request) =>
      withRequestId(
        request,
        await swaps
          .quote({
            ...(request.query as SwapApprovalRequest),
            actions: request.body.actions as SwapApprovalRequest["actions"],
          })
          .catch(throwQuoteErrorAsHttp),
      ),
  );
}
