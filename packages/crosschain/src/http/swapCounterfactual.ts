/**
 * `GET /swap/counterfactual`: a deposit address for a transfer (the anchor's early-access endpoint, reference
 * §1.7): the quote of the same transfer shaped like `/swap/approval`, without a transaction to send, plus
 * `depositAddress`. Sending the input token to that address is the whole user action.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { DepositAddressService } from "../services/depositAddresses.ts";
import { withRequestId } from "./errorFormat.ts";
import { swapsTag } from "./openapiTags.ts";
import { throwQuoteErrorAsHttp } from "./quoteHttpErrors.ts";
import { AddressParam, ChainIdParam, ErrorBody, UnauthorizedBody } from "./schemas.ts";
import { SwapApprovalResponseSchema } from "./swapSchemas.ts";

const CounterfactualQuery = Type.Object({
  useDepositAddress: Type.Boolean({ description: "Must be true." }),
  inputToken: AddressParam("Token sent to the address on the origin chain (USDC, USDT, WBTC, WETH; zero = ETH)."),
  outputToken: AddressParam("Token received on the destination chain (the route's bridged token)."),
  originChainId: ChainIdParam("Origin chain (one with the counterfactual deposit contracts)."),
  destinationChainId: ChainIdParam("Destination chain."),
  amount: Type.String({
    pattern: "^[0-9]{1,78}$",
    description: "Amount the quote is shown for (any amount may be sent).",
  }),
  recipient: AddressParam("Receives the output token."),
  refundAddress: Type.Optional(AddressParam("Receives funds the address cannot deposit; default the recipient.")),
  integratorId: Type.Optional(Type.String({ maxLength: 16, description: "2-byte hex id, e.g. 0xdead." })),
});

const { swapTx: _swapTx, approvalTxns: _approvals, ...quoteFields } = SwapApprovalResponseSchema.properties;
const [example] = (SwapApprovalResponseSchema as { examples?: Record<string, unknown>[] }).examples ?? [];
const { swapTx: _exampleTx, approvalTxns: _exampleApprovals, ...exampleFields } = example ?? {};
const CounterfactualResponse = Type.Object(
  {
    ...quoteFields,
    depositAddress: Type.String({ description: "Send the input token here; deterministic from the parameters." }),
  },
  {
    examples: [
      {
        ...exampleFields,
        crossSwapType: "bridgeableToBridgeable",
        depositAddress: "0x2b3c8d5f0e1a4b6c7d8e9f00112233445566778f",
      },
    ],
  },
);

export function registerSwapCounterfactualRoute(app: HttpServer, depositAddresses: DepositAddressService) {
  app.get(
    "/swap/counterfactual",
    {
      schema: {
        operationId: "getSwapCounterfactual",
        tags: [swapsTag.name],
        summary: "A counterfactual deposit address for a transfer",
        description:
          "An address computed from the transfer's parameters (CREATE2 over the merkle root of its deposit and " +
          "withdraw leaves). Funds sent there are deposited into the SpokePool by the service (the beacon " +
          "signer's EIP-712 authorisation, within the address's fee cap) and show at /deposit/status?depositAddress=…&index=…; " +
          "funds that cannot be deposited within the cap are returned to refundAddress. Bridgeable routes only.",
        querystring: CounterfactualQuery,
        response: {
          200: CounterfactualResponse,
          400: ErrorBody({
            status: 400,
            code: "MISSING_PARAM",
            message: "useDepositAddress=true is required",
            param: "useDepositAddress",
          }),
          401: UnauthorizedBody,
          502: ErrorBody({
            status: 502,
            code: "UPSTREAM_RPC_ERROR",
            message: "Could not compute the deposit address on chain 8453: its RPC is not answering",
          }),
          503: ErrorBody({
            status: 503,
            code: "UPSTREAM_RPC_ERROR",
            message: "Chain 10 state is not available yet; try again shortly",
          }),
        },
      },
    },
    async (request) => withRequestId(request, await depositAddresses.quote(request.query).catch(throwQuoteErrorAsHttp)),
  );
}
