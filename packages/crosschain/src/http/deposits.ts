/** `GET /deposit/status` and `GET /deposits`, from the SpokePool events the indexer stored. */
import { HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { deriveDepositStatus } from "../domain/depositStatus.ts";
import type { DepositRow, DepositsRepository } from "../store/depositsRepository.ts";
import { withRequestId } from "./errorFormat.ts";
import { AddressParam, Bytes32Param, ChainIdParam, ErrorBody, TxHashParam } from "./schemas.ts";

const hex = (b: Buffer | null) => (b ? `0x${b.toString("hex")}` : null);
/** bytes32 → 0x address when it is a left-padded EVM address, else the bytes32 itself. */
const address = (b: Buffer) =>
  b.length === 32 && b.subarray(0, 12).every((x) => x === 0)
    ? `0x${b.subarray(12).toString("hex")}`
    : `0x${b.toString("hex")}`;
const addressKey = (a: string) => Buffer.concat([Buffer.alloc(12), Buffer.from(a.slice(2).toLowerCase(), "hex")]);

function derive(row: DepositRow) {
  return deriveDepositStatus(
    {
      fillDeadline: Number(row.fill_deadline),
      message: hex(row.message) ?? "0x",
      fill: row.fill_tx_hash
        ? { txHash: hex(row.fill_tx_hash) as string, callsFailed: row.fill_calls_failed === true }
        : null,
      slowFillRequested: row.slow_fill_requested,
    },
    Math.floor(Date.now() / 1000),
  );
}

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

const StatusResponse = Type.Object({
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
});

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

/** The anchor's IndexParamOutOfRangeException. */
const indexOutOfRange = (index: number, maxIndex: number) =>
  new HttpError(400, `Index ${index} out of range. Index must be between 0 and ${maxIndex}`, "INVALID_PARAM", "index");

function statusBody(request: FastifyRequest, row: DepositRow, currentIndex: number, maxIndex: number) {
  const s = derive(row);
  const depositTx = hex(row.tx_hash) as string;
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

const notFound = () => new HttpError(404, "Deposit not found given the provided constraints", "DEPOSIT_NOT_FOUND");

function listItem(row: DepositRow) {
  const s = derive(row);
  const depositTx = hex(row.tx_hash) as string;
  return {
    id: Number(row.id),
    relayHash: hex(row.relay_hash),
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
    message: hex(row.message),
    messageHash: hex(row.message_hash),
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
    fillGasFee: row.fill_gas_fee,
    // Prices are not tracked by this deployment; swaps and destination actions come with later issues.
    inputPriceUsd: null,
    outputPriceUsd: null,
    fillGasFeeUsd: null,
    fillGasTokenPriceUsd: null,
    bridgeFeeUsd: null,
    swapTokenPriceUsd: null,
    swapFeeUsd: null,
    actionsTargetChainId: null,
    swapTransactionHash: null,
    swapToken: null,
    swapTokenAmount: null,
    speedups: row.speedups,
  };
}

export function registerDepositRoutes(app: HttpServer, deps: { deposits: DepositsRepository }) {
  app.get(
    "/deposit/status",
    {
      schema: {
        tags: ["Deposits"],
        summary: "Status of a deposit",
        description:
          "Look a deposit up by depositTxnRef (+ index when one transaction holds several deposits), by relayDataHash, " +
          "by originChainId + depositId, or by depositAddress + index (the index-th deposit made from that address, oldest first). " +
          "Status: pending, filled, slowFillRequested, expired.",
        querystring: StatusQuery,
        response: { 200: StatusResponse, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const q = request.query;
      /** The `q.index`-th of `count` matching deposits (`row`, read at that index); 404 when none match. */
      const answer = (row: DepositRow | undefined, count: number) => {
        if (count === 0) throw notFound();
        if (!row) throw indexOutOfRange(q.index, count - 1);
        return statusBody(request, row, q.index, count - 1);
      };
      /** A lookup that matches at most one deposit. */
      const single = (row: DepositRow | undefined) => answer(q.index === 0 ? row : undefined, row ? 1 : 0);
      // The anchor's order: a transaction reference wins over the other lookups.
      const txRef = q.depositTxnRef ?? q.depositTxHash;
      if (txRef) {
        const rows = await deps.deposits.byTxHash(Buffer.from(txRef.slice(2), "hex"));
        return answer(rows[q.index], rows.length);
      }
      if (q.relayDataHash) {
        const row = await deps.deposits.byRelayHash(Buffer.from(q.relayDataHash.slice(2), "hex"));
        // With originChainId and depositId as well, all must match (the anchor ANDs them).
        const other =
          (q.originChainId !== undefined && Number(row?.origin_chain_id) !== q.originChainId) ||
          (q.depositId !== undefined && row !== undefined && BigInt(row.deposit_id) !== BigInt(q.depositId));
        return single(other ? undefined : row);
      }
      if (q.originChainId !== undefined || q.depositId !== undefined) {
        if (q.originChainId === undefined)
          throw new HttpError(400, "originChainId is required with depositId", "MISSING_PARAM", "originChainId");
        if (q.depositId === undefined)
          throw new HttpError(400, "depositId is required with originChainId", "MISSING_PARAM", "depositId");
        return single(await deps.deposits.byDepositId(q.originChainId, q.depositId));
      }
      if (q.depositAddress) {
        const { row, count } = await deps.deposits.byDepositor(addressKey(q.depositAddress), q.index);
        return answer(row, count);
      }
      throw new HttpError(
        400,
        "Provide originChainId and depositId, or depositTxnRef, or relayDataHash, or depositAddress (with index)",
        "MISSING_PARAM",
        "depositTxnRef",
      );
    },
  );

  app.get(
    "/deposits",
    {
      schema: {
        tags: ["Deposits"],
        summary: "Deposits, newest first",
        description:
          "`address` matches the depositor or the recipient (and then depositor/recipient are ignored, as by the anchor). " +
          "`status` takes the raw values (unfilled, not pending). Block ranges are inclusive.",
        querystring: ListQuery,
        response: { 200: Type.Array(Type.Record(Type.String(), Type.Unknown())), 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.limit > 1000) throw new HttpError(400, "Limit must not exceed 1000", "INVALID_PARAM", "limit");
      if (q.depositType === "cctp" || q.depositType === "oft") return [];
      const key = (a: string | undefined) => (a ? addressKey(a) : undefined);
      const rows = await deps.deposits.list({
        depositor: key(q.depositor),
        recipient: key(q.recipient),
        address: key(q.address),
        originChainId: q.originChainId,
        destinationChainId: q.destinationChainId,
        inputToken: key(q.inputToken),
        outputToken: key(q.outputToken),
        integratorId: q.integratorId,
        status: q.status,
        startBlock: q.startBlock,
        endBlock: q.endBlock,
        startFillBlock: q.startFillBlock,
        endFillBlock: q.endFillBlock,
        skip: q.skip,
        limit: q.limit,
        nowSec: Math.floor(Date.now() / 1000),
      });
      return rows.map(listItem);
    },
  );
}
