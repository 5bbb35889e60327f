/**
 * `GET /deposits/status/stream`: deposit status changes as server-sent events, following the wearables'
 * sync stream (`wearables/src/http/syncStatus.ts`) over the status outbox (`services/depositStatusStream.ts`).
 * The first events are the current status of each matching deposit; then each change as the writers record
 * it. `id:` is the outbox id, so `Last-Event-ID` (or `?lastEventId=`) resumes after it without missing one.
 */
import { byteaToHex, type Database, HttpError, type HttpServer, hexToBytea, type Logger } from "@platform/kernel";
import { type Static, Type } from "typebox";
import {
  createDepositStatusStream,
  type DepositStatusEventRow,
  type DepositStatusFilter,
  type DepositStatusStream,
} from "../services/depositStatusStream.ts";
import { depositsTag } from "./openapiTags.ts";
import { ChainIdParam, ErrorBody, TxHashParam, UnauthorizedBody } from "./schemas.ts";

/** A heartbeat comment keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Depositors one stream may follow. */
const MAX_DEPOSITORS = 100;
const ADDRESS = "0x[0-9a-fA-F]{40}";
const EVENT_ID = /^\d{1,19}$/;

const StreamQuery = Type.Object({
  depositor: Type.Optional(
    Type.Array(
      Type.String({
        pattern: `^${ADDRESS}(,${ADDRESS})*$`,
        description: "Depositor address; repeat the parameter or give a comma-separated list.",
      }),
      { maxItems: MAX_DEPOSITORS, description: `Depositor addresses (at most ${MAX_DEPOSITORS}).` },
    ),
  ),
  depositAddress: Type.Optional(
    Type.String({
      pattern: `^${ADDRESS}$`,
      description:
        "Address the deposits are made from, as /deposit/status takes it (e.g. a counterfactual deposit address); a depositor.",
    }),
  ),
  originChainId: Type.Optional(ChainIdParam("Origin chain of the deposit; with depositId.")),
  depositId: Type.Optional(
    Type.String({ pattern: "^[0-9]{1,78}$", description: "Deposit id on the origin chain; with originChainId." }),
  ),
  depositTxnRef: Type.Optional(TxHashParam("Hash of the deposit transaction.")),
  lastEventId: Type.Optional(
    Type.String({ pattern: "^[0-9]{1,19}$", description: "Resume after this event id (as the Last-Event-ID header)." }),
  ),
});
type StreamQuery = Static<typeof StreamQuery>;

/** The data of one `status` event. */
export interface DepositStatusEventData {
  originChainId: number;
  depositId: string;
  depositTxnRef: string;
  status: string;
  fillTxnRef: string | null;
  depositRefundTxnRef: string | null;
  cause: string;
  at: string;
}

const EVENT_EXAMPLE: DepositStatusEventData = {
  originChainId: 8453,
  depositId: "4406025",
  depositTxnRef: "0x9d3f2a7c1b6e4d8f0a2c5e7b9d1f3a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f",
  status: "filled",
  fillTxnRef: "0x1e5b7d9f3a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b",
  depositRefundTxnRef: null,
  cause: "indexer",
  at: "2026-11-27T10:00:04.000Z",
};

function toEventData(row: DepositStatusEventRow): DepositStatusEventData {
  return {
    originChainId: Number(row.origin_chain_id),
    depositId: row.deposit_id,
    depositTxnRef: byteaToHex(row.deposit_tx),
    status: row.status,
    fillTxnRef: row.fill_tx ? byteaToHex(row.fill_tx) : null,
    depositRefundTxnRef: row.refund_tx ? byteaToHex(row.refund_tx) : null,
    cause: row.cause,
    at: row.at.toISOString(),
  };
}

/** The deposits a query names; at least one filter, and originChainId with depositId. */
function parseFilter(q: StreamQuery): DepositStatusFilter {
  if ((q.originChainId === undefined) !== (q.depositId === undefined)) {
    const missing = q.originChainId === undefined ? "originChainId" : "depositId";
    throw new HttpError(400, "originChainId and depositId go together", "MISSING_PARAM", missing);
  }
  const depositors = [
    ...(q.depositor ?? []).flatMap((list) => list.split(",")),
    ...(q.depositAddress ? [q.depositAddress] : []),
  ];
  if (depositors.length > MAX_DEPOSITORS) {
    throw new HttpError(400, `At most ${MAX_DEPOSITORS} depositors`, "INVALID_PARAM", "depositor");
  }
  const filter: DepositStatusFilter = {
    depositors: depositors.length ? depositors.map((a) => Buffer.concat([Buffer.alloc(12), hexToBytea(a)])) : undefined,
    deposit:
      q.originChainId !== undefined && q.depositId !== undefined
        ? { originChainId: q.originChainId, depositId: BigInt(q.depositId).toString() }
        : undefined,
    depositTx: q.depositTxnRef ? hexToBytea(q.depositTxnRef) : undefined,
  };
  if (!filter.depositors && !filter.deposit && !filter.depositTx) {
    throw new HttpError(
      400,
      "Provide depositor (or depositAddress), or originChainId and depositId, or depositTxnRef",
      "MISSING_PARAM",
      "depositor",
    );
  }
  return filter;
}

export interface DepositStatusStreamRouteDeps {
  db: Database;
  logger: Pick<Logger, "warn" | "error">;
  /** The outbox reader's safety poll (default 1 s); where LISTEN is not available, how soon a change is seen. */
  pollIntervalMs?: number;
  heartbeatMs?: number;
}

/** Registers the route; its outbox reader is made here and stopped when the server closes. */
export function registerDepositStatusStreamRoute(app: HttpServer, deps: DepositStatusStreamRouteDeps) {
  const stream: DepositStatusStream = createDepositStatusStream(deps);
  const heartbeatMs = deps.heartbeatMs ?? HEARTBEAT_MS;
  const open = new Set<(clientGone: boolean) => void>();
  // preClose: an open stream would otherwise keep the server's close waiting for its connection.
  app.addHook("preClose", async () => {
    for (const end of open) end(false);
  });
  app.addHook("onClose", () => stream.close());
  app.get(
    "/deposits/status/stream",
    {
      schema: {
        operationId: "streamDepositStatus",
        tags: [depositsTag.name],
        summary: "Stream deposit status changes",
        description:
          "Server-sent events (`event: status`, `id` the event id, `data` a JSON object: originChainId, depositId, " +
          "depositTxnRef, status, fillTxnRef, depositRefundTxnRef, cause, at). Filter by depositor, by originChainId " +
          "and depositId, or by depositTxnRef (at least one; several must all match). The first events are the " +
          "current status of each matching deposit; a `Last-Event-ID` header (or lastEventId) resumes after that " +
          "event instead. Status: pending, filled, slowFillRequested, expired, refunded. Cause: indexer, expiry, " +
          "settlement, reorg. A comment line is sent every 15 s.",
        querystring: StreamQuery,
        response: {
          200: {
            description: "Server-sent events, each a deposit status.",
            content: {
              "text/event-stream": {
                schema: Type.String({
                  examples: [`id: 42\nevent: status\ndata: ${JSON.stringify(EVENT_EXAMPLE)}\n\n`],
                }),
              },
            },
          },
          400: ErrorBody({
            status: 400,
            code: "MISSING_PARAM",
            message: "Provide depositor (or depositAddress), or originChainId and depositId, or depositTxnRef",
            param: "depositor",
          }),
          401: UnauthorizedBody,
        },
      },
    },
    async (request, reply) => {
      const filter = parseFilter(request.query);
      const header = String(request.headers["last-event-id"] ?? "");
      const resumeFrom = EVENT_ID.test(header) ? header : request.query.lastEventId;
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      // Headers go out at once (a client waits for them before its first event), with the retry hint.
      res.write("retry: 3000\n\n");
      let unsubscribe: (() => void) | undefined;
      let closed = false;
      const heartbeat = setInterval(() => res.write(": ping\n\n"), heartbeatMs);
      const end = (clientGone = false) => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        unsubscribe?.();
        open.delete(end);
        // A client that went away gets its socket destroyed rather than a last chunk nobody reads.
        if (clientGone) res.destroy();
        else res.end();
      };
      open.add(end);
      // The response's close is the client's disconnect (after our own end it finds the stream closed already).
      res.on("close", () => end(true));
      try {
        const resumeAfter = resumeFrom === undefined ? undefined : BigInt(resumeFrom);
        const stop = await stream.subscribe(filter, resumeAfter, (row) => {
          if (!closed) res.write(`id: ${row.id}\nevent: status\ndata: ${JSON.stringify(toEventData(row))}\n\n`);
        });
        if (closed) stop();
        else unsubscribe = stop;
      } catch (error) {
        request.log.warn({ err: error }, "deposit status stream failed");
        end(true);
      }
    },
  );
}
