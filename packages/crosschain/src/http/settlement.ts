/**
 * `GET /settlement/bundles` and `GET /settlement/bundles/{id}`: the root bundles the dataworker settled or is
 * settling (no anchor has these; Across shows bundles only on chain). For operators and for clients that
 * want to see what a bundle paid.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SettlementService } from "../services/settlement.ts";
import { settlementTag } from "./openapiTags.ts";
import { ErrorBody, InvalidParamBody, UnauthorizedBody } from "./schemas.ts";

const Amounts = Type.Array(Type.String({ pattern: "^-?\\d+$" }));
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const BundleSummary = Type.Object({
  id: Type.Integer(),
  status: Type.Union([
    Type.Literal("built"),
    Type.Literal("proposed"),
    Type.Literal("executed"),
    Type.Literal("abandoned"),
  ]),
  ranges: Type.Array(
    Type.Object({
      chainId: Type.Integer(),
      startBlock: Type.String(),
      endBlock: Type.String(),
      endBlockTimestamp: Type.Integer(),
    }),
  ),
  poolRebalanceRoot: Type.String(),
  relayerRefundRoot: Type.String(),
  slowRelayRoot: Type.String(),
  proposeTxnRef: Nullable(Type.String()),
  challengePeriodEndTimestamp: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
});

const BundleDetail = Type.Object({
  ...BundleSummary.properties,
  totals: Type.Array(
    Type.Object({
      kind: Type.String({ description: "deposit, fillRefund, expiredRefund, slowFill or excessSlowFill" }),
      chainId: Type.Integer(),
      token: Type.String(),
      count: Type.Integer(),
      amount: Type.String(),
      lpFees: Type.String(),
    }),
  ),
  poolRebalanceLeaves: Type.Array(
    Type.Object({
      leafId: Type.Integer(),
      chainId: Type.Integer(),
      l1Tokens: Type.Array(Type.String()),
      netSendAmounts: Amounts,
      runningBalances: Amounts,
      bundleLpFees: Amounts,
      executionTxnRef: Nullable(Type.String()),
    }),
  ),
  relayerRefundLeaves: Type.Array(
    Type.Object({
      leafId: Type.Integer(),
      chainId: Type.Integer(),
      l2Token: Type.String(),
      amountToReturn: Type.String(),
      refundAddresses: Type.Array(Type.String()),
      refundAmounts: Amounts,
      rootBundleId: Nullable(Type.Integer()),
      executionTxnRef: Nullable(Type.String()),
    }),
  ),
  slowRelayLeaves: Type.Array(
    Type.Object({
      relayHash: Type.String(),
      chainId: Type.Integer(),
      updatedOutputAmount: Type.String(),
      state: Type.String({ description: "pending, executed, superseded (filled fast meanwhile) or expired" }),
      executionTxnRef: Nullable(Type.String()),
    }),
  ),
});

const ZERO_ROOT = `0x${"0".repeat(64)}`;
const SUMMARY_EXAMPLE = {
  id: 3,
  status: "executed",
  ranges: [
    { chainId: 1, startBlock: "101", endBlock: "140", endBlockTimestamp: 1_795_000_000 },
    { chainId: 10, startBlock: "98", endBlock: "131", endBlockTimestamp: 1_795_000_002 },
  ],
  poolRebalanceRoot: `0x${"ab".repeat(32)}`,
  relayerRefundRoot: `0x${"cd".repeat(32)}`,
  slowRelayRoot: ZERO_ROOT,
  proposeTxnRef: `0x${"12".repeat(32)}`,
  challengePeriodEndTimestamp: 1_795_000_607,
  error: null,
  createdAt: "2026-11-28T01:00:00.000Z",
  updatedAt: "2026-11-28T01:00:09.000Z",
};

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Bundles per page." })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: "Only bundles with a smaller id (the next page)." })),
});

export function registerSettlementRoutes(app: HttpServer, settlement: SettlementService) {
  app.get(
    "/settlement/bundles",
    {
      schema: {
        operationId: "listSettlementBundles",
        tags: [settlementTag.name],
        summary: "Root bundles",
        description: "The root bundles the dataworker built, newest first, with their block ranges and proposal.",
        querystring: ListQuery,
        response: {
          200: Type.Array(BundleSummary, { examples: [[SUMMARY_EXAMPLE]] }),
          400: InvalidParamBody("limit", "must be <= 100"),
          401: UnauthorizedBody,
        },
      },
    },
    async (request) => {
      const q = request.query as { limit?: number; before?: number };
      return settlement.list(q.limit ?? 20, q.before);
    },
  );

  app.get(
    "/settlement/bundles/:id",
    {
      schema: {
        operationId: "getSettlementBundle",
        tags: [settlementTag.name],
        summary: "One root bundle",
        description:
          "A root bundle with what it paid per kind, chain and token, and each pool rebalance, relayer refund and slow relay leaf with the transaction that executed it.",
        params: Type.Object({ id: Type.Integer({ minimum: 1, description: "The bundle's id." }) }),
        response: {
          200: Type.Object(BundleDetail.properties, {
            examples: [
              {
                ...SUMMARY_EXAMPLE,
                totals: [
                  {
                    kind: "fillRefund",
                    chainId: 10,
                    token: `0x${"11".repeat(20)}`,
                    count: 2,
                    amount: "1998000",
                    lpFees: "2000",
                  },
                ],
                poolRebalanceLeaves: [],
                relayerRefundLeaves: [],
                slowRelayLeaves: [],
              },
            ],
          }),
          401: UnauthorizedBody,
          404: ErrorBody({ status: 404, code: "NOT_FOUND", message: "No bundle 7" }),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: number };
      const bundle = await settlement.get(id);
      if (!bundle) throw new HttpError(404, `No bundle ${id}`, "NOT_FOUND");
      return bundle;
    },
  );
}
