/** `GET /deposit/status` and `GET /deposits`, from the SpokePool events the indexer stored. */
import { HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { deriveDepositStatus } from "../domain/depositStatus.ts";
import type { DepositRow, DepositsRepository } from "../store/depositsRepository.ts";
import { withRequestId } from "./errorFormat.ts";
import { AddressParam, ChainIdParam, ErrorBody, TxHashParam } from "./schemas.ts";

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
  skip: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
});

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
    id: `${row.origin_chain_id}-${row.deposit_id}`,
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
    // Prices are not tracked by this deployment.
    inputPriceUsd: null,
    outputPriceUsd: null,
    fillGasFeeUsd: null,
    bridgeFeeUsd: null,
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
          "Look a deposit up by originChainId + depositId, by depositTxnRef (+ index when one transaction holds several " +
          "deposits), or by depositAddress + index (the index-th deposit made from that address, oldest first). " +
          "Status: pending, filled, slowFillRequested, expired.",
        querystring: StatusQuery,
        response: { 200: StatusResponse, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.originChainId !== undefined || q.depositId !== undefined) {
        if (q.originChainId === undefined)
          throw new HttpError(400, "originChainId is required with depositId", "MISSING_PARAM", "originChainId");
        if (q.depositId === undefined)
          throw new HttpError(400, "depositId is required with originChainId", "MISSING_PARAM", "depositId");
        const row = await deps.deposits.byDepositId(q.originChainId, q.depositId);
        if (!row) throw notFound();
        return statusBody(request, row, 0, 0);
      }
      const txRef = q.depositTxnRef ?? q.depositTxHash;
      if (txRef) {
        const rows = await deps.deposits.byTxHash(Buffer.from(txRef.slice(2), "hex"));
        if (rows.length === 0) throw notFound();
        const row = rows[q.index];
        if (!row)
          throw new HttpError(
            400,
            `index must be at most ${rows.length - 1} for this transaction`,
            "INVALID_PARAM",
            "index",
          );
        return statusBody(request, row, q.index, rows.length - 1);
      }
      if (q.depositAddress) {
        const { row, count } = await deps.deposits.byDepositor(addressKey(q.depositAddress), q.index);
        if (count === 0) throw notFound();
        if (!row)
          throw new HttpError(400, `index must be at most ${count - 1} for this address`, "INVALID_PARAM", "index");
        return statusBody(request, row, q.index, count - 1);
      }
      throw new HttpError(
        400,
        "Provide originChainId and depositId, or depositTxnRef, or depositAddress (with index)",
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
          "`address` matches the depositor or the recipient. `status` takes the raw values (unfilled, not pending).",
        querystring: ListQuery,
        response: { 200: Type.Array(Type.Record(Type.String(), Type.Unknown())), 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => {
      const q = request.query;
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
        skip: q.skip,
        limit: q.limit,
        nowSec: Math.floor(Date.now() / 1000),
      });
      return rows.map(listItem);
    },
  );
}
