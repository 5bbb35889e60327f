/**
 * The crosschain error body: `{type: "ServiceApiError", code, status, message, param?, id}` (the spec's
 * form of Across' AcrossApiError), with the request id. Successful object bodies carry `id` too (see
 * `withRequestId`), as the anchor's `sendResponse` adds it to any body.
 */
import type { ErrorFormatter } from "@platform/kernel";
import type { FastifyRequest } from "fastify";

/** Codes of this API (spec + anchor). */
export type ServiceApiErrorCode =
  | "INVALID_PARAM"
  | "MISSING_PARAM"
  | "AMOUNT_TOO_HIGH"
  | "AMOUNT_TOO_LOW"
  | "ROUTE_NOT_ENABLED"
  | "DEPOSIT_NOT_FOUND"
  | "UNAUTHORIZED"
  | "NOT_FOUND"
  | "SIMULATION_ERROR"
  | "SWAP_LIQUIDITY_INSUFFICIENT"
  | "SWAP_QUOTE_UNAVAILABLE"
  | "ABI_ENCODING_ERROR"
  | "INVALID_METHOD"
  | "UPSTREAM_RPC_ERROR"
  | "INTERNAL_SERVER_ERROR";

/**
 * 5xx errors the service raises on purpose (an RPC not answering, chain state not warm yet), whose code
 * and message are its own and safe to show; any other 5xx is an unexpected failure, shown as the anchor
 * shows it, with its details only in the log.
 */
const isDeliberate5xx = (status: number, code: string | undefined) => status >= 500 && code === "UPSTREAM_RPC_ERROR";

function codeFor(status: number, code: string | undefined): string {
  if (status === 401) return "UNAUTHORIZED";
  if (isDeliberate5xx(status, code)) return code as string;
  if (status >= 500) return "INTERNAL_SERVER_ERROR";
  if (code === "MISSING_PARAM" || code === "INVALID_PARAM") return code;
  if (code && /^[A-Z_]+$/.test(code) && !code.startsWith("FST_")) return code;
  return status === 404 ? "NOT_FOUND" : "INVALID_PARAM";
}

export const formatError: ErrorFormatter = (error, request) => ({
  statusCode: error.statusCode,
  body: {
    type: "ServiceApiError",
    code: codeFor(error.statusCode, error.code),
    status: error.statusCode,
    message:
      error.statusCode >= 500 && !isDeliberate5xx(error.statusCode, error.code)
        ? "Unexpected error occurred. Please try again later or contact support."
        : error.message,
    ...(error.param ? { param: error.param } : {}),
    id: request.id,
  },
});

/** `body` with the request id, as every object response of this API carries it. */
export const withRequestId = <T extends object>(request: FastifyRequest, body: T): T & { id: string } => ({
  ...body,
  id: request.id,
});
