/**
 * `GET /deposit/status` and `GET /deposits`, from the SpokePool events the indexer stored: each route parses
 * its query, asks `services/deposits.ts`, and shapes the anchor's JSON; deposit errors become HTTP here.
 */
import { byteaToHex, HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { DepositIndexOutOfRangeError, DepositNotFoundError } from "../domain/depositErrors.ts";
import { gasFeeUsd, usdText } from "../domain/fillCosts.ts";
import type { DepositLookup, DepositsService, DepositWithStatus, FoundDeposit } from "../services/deposits.ts";
import { withRequestId } from "./errorFormat.ts";
import { depositsTag } from "./openapiTags.ts";
import {
  AddressParam,
  Bytes32Param,
  ChainIdParam,
  ErrorBody,
  EXAMPLE_REQUEST_ID,
  TxHashParam,
  UnauthorizedBody,
} from "./schemas.ts";

/** bytes32 → 0x address when it is a left-padded EVM address, else the bytes32 itself. */
const address = (b: Buffer) =>
  byteaToHex(b.length === 32 && b.subarray(0, 12).every((x) => x === 0) ? b.subarray(12) : b);

const nullableBigInt = (value: string | null) => (value === null ? null : BigInt(value));

const StatusQuery = Type.Object({
  originChainId: Type.Optional(ChainIdParam("Origin chain of the deposit; with depositId.")),
  depositId: Type.Optional(
    Type.String({ pattern: "^[0-9]{1,78}$", description: "Deposit id on the origin chain; with originChainId." }),
  ),
  depositTxnRef: Type.Optional(TxHashParam("Hash of the deposit transaction.")),
  depositTxHash: Type.Optional(TxHashParam("Deprecated alias of depositTxnRef.")),
  relayDataHash: Type.Optional(Bytes32Param("The deposit's relay hash (relayHash in /deposits).")),
  depositAddress: Type.Optional(AddressParam("Address the deposits were made from; with index.")),
  index: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
    description: "Which deposit of the transaction or address (0-based).",
  }),
});

/** The anchor's example deposit (Base → Polygon, filled). */
const DEPOSIT_TX = "0x0e44727151684ef4cfe7744aad88007cf55b155a64f5f9047fb9d2fa53780967";
const FILL_TX = "0x0e7b85f1c49c4c89f3b381f12a24d6838be16a41021ab16645bae9dcd1278238";

const StatusResponse = Type.Object(
  {
    status: Type.String(),
    originChainId: Type.Integer(),
    depositId: Type.String(),
    depositTxHash: Type.String(),
    depositTxnRef: Type.String(),
    fillTx: Type.Union([Type.String(), Type.Null()]),
    fillTxnRef: Type.Union([Type.String(), Type.Null()]),
    destinationChainId: Type.Integer(),
    depositRefundTxHash: Type.Union([Type.String(), Type.Null()]),
    depositRefundTxnRef: Type.Union([Type.String(), Type.Null()]),
    actionsSucceeded: Type.Union([Type.Boolean(), Type.Null()]),
    pagination: Type.Object({ currentIndex: Type.Integer(), maxIndex: Type.Integer() }),
    id: Type.String(),
  },
  {
    examples: [
      {
        status: "filled",
        originChainId: 8453,
        depositId: "4406025",
        depositTxHash: DEPOSIT_TX,
        depositTxnRef: DEPOSIT_TX,
        fillTx: FILL_TX,
        fillTxnRef: FILL_TX,
        destinationChainId: 137,
        depositRefundTxHash: null,
        depositRefundTxnRef: null,
        actionsSucceeded: null,
        pagination: { currentIndex: 0, maxIndex: 0 },
        id: EXAMPLE_REQUEST_ID,
      },
    ],
  },
);

/** One `/deposits` item: the anchor's example deposit (Base → Arbitrum, filled) as this service answers it. */
const LIST_ITEM_EXAMPLE = {
  id: 14503095,
  relayHash: "0x89cb192c96170615b7e1a0fb20fb64b7c04f6641b301e2735287533e1dbb22ac",
  depositId: "4333561",
  originChainId: 8453,
  destinationChainId: 42161,
  depositor: "0xA4d353BBc130cbeF1811f27ac70989F9d568CeAB",
  recipient: "0xA4d353BBc130cbeF1811f27ac70989F9d568CeAB",
  inputToken: "0x4200000000000000000000000000000000000006",
  inputAmount: "1000000000000000",
  outputToken: "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1",
  outputAmount: "995226997892889",
  swapOutputToken: null,
  swapOutputTokenAmount: null,
  message: "0x",
  messageHash: "0x0000000000000000000000000000000000000000000000000000000000000000",
  exclusiveRelayer: "0xCad97616f91872C02BA3553dB315Db4015cBE850",
  exclusivityDeadline: null,
  fillDeadline: "2025-07-24T19:26:20.000Z",
  quoteTimestamp: "2025-07-24T16:07:11.000Z",
  depositTxHash: "0x92ffc5d69d00e14e79254f68adab030dd38119996501a88cac0da76557703d11",
  depositTxnRef: "0x92ffc5d69d00e14e79254f68adab030dd38119996501a88cac0da76557703d11",
  depositBlockNumber: 33292078,
  depositBlockTimestamp: "2025-07-24T16:11:43.000Z",
  status: "filled",
  depositRefundTxHash: null,
  depositRefundTxnRef: null,
  integratorId: null,
  actionsSucceeded: null,
  relayer: "0xCad97616f91872C02BA3553dB315Db4015cBE850",
  fillBlockNumber: 362177400,
  fillBlockTimestamp: "2025-07-24T16:11:43.000Z",
  fillTx: "0x7b98cebd7ee6e2f75fead81d73005cdf25149141c2045cb5f731b6d9c6b9c517",
  fillTxnRef: "0x7b98cebd7ee6e2f75fead81d73005cdf25149141c2045cb5f731b6d9c6b9c517",
  fillGasFee: "2532354948000",
  inputPriceUsd: "3746.9406687316323",
  outputPriceUsd: "3746.9406687316323",
  fillGasFeeUsd: "0.009488583742324977",
  fillGasTokenPriceUsd: "3746.9406687316323",
  bridgeFeeUsd: "0.017884155707075979",
  swapTokenPriceUsd: null,
  swapFeeUsd: null,
  actionsTargetChainId: null,
  swapTransactionHash: null,
  swapToken: null,
  swapTokenAmount: null,
  speedups: [],
};

const ListResponse = Type.Array(Type.Record(Type.String(), Type.Unknown()), { examples: [[LIST_ITEM_EXAMPLE]] });

const STATUSES = ["unfilled", "filled", "slowFillRequested", "slowFilled", "expired", "refunded"] as const;

const ListQuery = Type.Object({
  depositor: Type.Optional(AddressParam()),
  address: Type.Optional(AddressParam("Depositor or recipient.")),
  recipient: Type.Optional(AddressParam()),
  originChainId: Type.Optional(ChainIdParam()),
  destinationChainId: Type.Optional(ChainIdParam()),
  inputToken: Type.Optional(AddressParam()),
  outputToken: Type.Optional(AddressParam()),
  integratorId: Type.Optional(Type.String({ pattern: "^0x[0-9a-fA-F]{4}$" })),
  status: Type.Optional(Type.Unsafe<(typeof STATUSES)[number]>({ type: "string", enum: [...STATUSES] })),
  depositType: Type.Optional(
    Type.Unsafe<"across" | "cctp" | "oft">({
      type: "string",
      enum: ["across", "cctp", "oft"],
      description: "This deployment indexes SpokePool (across) deposits only: cctp and oft list nothing.",
    }),
  ),
  startBlock: Type.Optional(BlockParam("Deposits from this origin block on.")),
  endBlock: Type.Optional(BlockParam("Deposits up to this origin block.")),
  startFillBlock: Type.Optional(BlockParam("Deposits filled from this destination block on.")),
  endFillBlock: Type.Optional(BlockParam("Deposits filled up to this destination block.")),
  skip: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
  // The bound is checked in the handler, with the anchor's message.
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 50, description: "At most 1000." }),
});

function BlockParam(description: string) {
  return Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
}

/** The lookup a status query asks for; the anchor's order: a transaction reference wins over the others. */
function parseLookup(q: Static<typeof StatusQuery>): DepositLookup {
  const txRef = q.depositTxnRef ?? q.depositTxHash;
  if (txRef) return { by: "txHash", txHash: txRef, index: q.index };
  if (q.relayDataHash) {
    const { originChainId, depositId, index } = q;
    return { by: "relayHash", relayHash: q.relayDataHash, originChainId, depositId, index };
  }
  if (q.originChainId !== undefined || q.depositId !== undefined) {
    if (q.originChainId === undefined)
      throw new HttpError(400, "originChainId is required with depositId", "MISSING_PARAM", "originChainId");
    if (q.depositId === undefined)
      throw new HttpError(400, "depositId is required with originChainId", "MISSING_PARAM", "depositId");
    return { by: "depositId", originChainId: q.originChainId, depositId: q.depositId, index: q.index };
  }
  if (q.depositAddress) return { by: "depositor", depositor: q.depositAddress, index: q.index };
  throw new HttpError(
    400,
    "Provide originChainId and depositId, or depositTxnRef, or relayDataHash, or depositAddress (with index)",
    "MISSING_PARAM",
    "depositTxnRef",
  );
}

/** Rethrows a deposit error as its HTTP answer; anything else stays an unexpected error (500). */
function throwAsHttpError(error: unknown): never {
  if (error instanceof DepositNotFoundError) throw new HttpError(404, error.message, "DEPOSIT_NOT_FOUND");
  if (error instanceof DepositIndexOutOfRangeError) throw new HttpError(400, error.message, "INVALID_PARAM", "index");
  throw error;
}

function statusBody(request: FastifyRequest, { deposit: row, status: s, currentIndex, maxIndex }: FoundDeposit) {
  const depositTx = byteaToHex(row.tx_hash);
  return withRequestId(request, {
    status: s.status,
    originChainId: Number(row.origin_chain_id),
    depositId: row.deposit_id,
    depositTxHash: depositTx,
    depositTxnRef: depositTx,
    fillTx: s.fillTxnRef,
    fillTxnRef: s.fillTxnRef,
    destinationChainId: Number(row.destination_chain_id),
    depositRefundTxHash: s.depositRefundTxnRef,
    depositRefundTxnRef: s.depositRefundTxnRef,
    actionsSucceeded: s.actionsSucceeded,
    pagination: { currentIndex, maxIndex },
  });
}

function listItem({ deposit: row, status: s }: DepositWithStatus) {
  const depositTx = byteaToHex(row.tx_hash);
  return {
    id: Number(row.id),
    relayHash: byteaToHex(row.relay_hash),
    depositId: row.deposit_id,
    originChainId: Number(row.origin_chain_id),
    destinationChainId: Number(row.destination_chain_id),
    depositor: address(row.depositor),
    recipient: address(row.recipient),
    inputToken: address(row.input_token),
    inputAmount: row.input_amount,
    outputToken: address(row.output_token),
    outputAmount: row.output_amount,
    // Swaps come with the swap endpoints (a later issue).
    swapOutputToken: null,
    swapOutputTokenAmount: null,
    message: byteaToHex(row.message),
    messageHash: byteaToHex(row.message_hash),
    exclusiveRelayer: address(row.exclusive_relayer),
    exclusivityDeadline: Number(row.exclusivity_deadline)
      ? new Date(Number(row.exclusivity_deadline) * 1000).toISOString()
      : null,
    fillDeadline: new Date(Number(row.fill_deadline) * 1000).toISOString(),
    quoteTimestamp: new Date(Number(row.quote_timestamp) * 1000).toISOString(),
    depositTxHash: depositTx,
    depositTxnRef: depositTx,
    depositBlockNumber: Number(row.block_number),
    depositBlockTimestamp: new Date(Number(row.block_timestamp) * 1000).toISOString(),
    status: s.rawStatus,
    depositRefundTxHash: s.depositRefundTxnRef,
    depositRefundTxnRef: s.depositRefundTxnRef,
    integratorId: row.integrator_id,
    actionsSucceeded: s.actionsSucceeded,
    relayer: row.fill_relayer ? address(row.fill_relayer) : null,
    fillBlockNumber: row.fill_block_number === null ? null : Number(row.fill_block_number),
    fillBlockTimestamp:
      row.fill_block_timestamp === null ? null : new Date(Number(row.fill_block_timestamp) * 1000).toISOString(),
    fillTx: s.fillTxnRef,
    fillTxnRef: s.fillTxnRef,
    // Recorded once per fill by the fill-cost pass (indexer/fillCosts.ts), so null until the deposit is
    // filled and read, as the anchor's records are for unfilled deposits.
    fillGasFee: row.fill_gas_fee,
    inputPriceUsd: usdText(nullableBigInt(row.fill_input_price_usd)),
    outputPriceUsd: usdText(nullableBigInt(row.fill_output_price_usd)),
    fillGasFeeUsd:
      row.fill_gas_fee === null || row.fill_gas_token_price_usd === null
        ? null
        : usdText(gasFeeUsd(BigInt(row.fill_gas_fee), BigInt(row.fill_gas_token_price_usd))),
    fillGasTokenPriceUsd: usdText(nullableBigInt(row.fill_gas_token_price_usd)),
    bridgeFeeUsd: usdText(nullableBigInt(row.fill_bridge_fee_usd)),
    // An origin swap (swapAndBridge) is the deposit's own transaction; its price and cost come with the fill's.
    swapTokenPriceUsd: usdText(nullableBigInt(row.fill_swap_token_price_usd)),
    swapFeeUsd: usdText(nullableBigInt(row.fill_swap_fee_usd)),
    // The anchor sets it for fills that forward to HyperCore only.
    actionsTargetChainId: null,
    swapTransactionHash: row.swap_token ? depositTx : null,
    swapToken: row.swap_token ? address(row.swap_token) : null,
    swapTokenAmount: row.swap_token_amount,
    speedups: row.speedups,
  };
}

export function registerDepositRoutes(app: HttpServer, deposits: DepositsService) {
  app.get(
    "/deposit/status",
    {
      schema: {
        operationId: "getDepositStatus",
        tags: [depositsTag.name],
        summary: "Status of a deposit",
        description:
          "Look a deposit up by depositTxnRef (+ index when one transaction holds several deposits), by relayDataHash, " +
          "by originChainId + depositId, or by depositAddress + index (the index-th deposit made from that address, oldest first). " +
          "Status: pending, filled, slowFillRequested, expired, refunded (an expired deposit whose refund leaf was executed; depositRefundTxnRef is that transaction).",
        querystring: StatusQuery,
        response: {
          200: StatusResponse,
          400: ErrorBody({
            status: 400,
            code: "MISSING_PARAM",
            message: "depositId is required with originChainId",
            param: "depositId",
          }),
          401: UnauthorizedBody,
          404: ErrorBody({
            status: 404,
            code: "DEPOSIT_NOT_FOUND",
            message: "Deposit not found given the provided constraints",
          }),
        },
      },
    },
    async (request) => statusBody(request, await deposits.find(parseLookup(request.query)).catch(throwAsHttpError)),
  );

  app.get(
    "/deposits",
    {
      schema: {
        operationId: "getDeposits",
        tags: [depositsTag.name],
        summary: "Deposits, newest first",
        description:
          "`address` matches the depositor or the recipient (and then depositor/recipient are ignored, as by the anchor). " +
          "`status` takes the raw values (unfilled, not pending). Block ranges are inclusive.",
        querystring: ListQuery,
        response: {
          200: ListResponse,
          400: ErrorBody({ status: 400, code: "INVALID_PARAM", message: "Limit must not exceed 1000", param: "limit" }),
          401: UnauthorizedBody,
        },
      },
    },
    async (request) => {
      if (request.query.limit > 1000) throw new HttpError(400, "Limit must not exceed 1000", "INVALID_PARAM", "limit");
      return (await deposits.list(request.query)).map(listItem);
    },
  );
}
