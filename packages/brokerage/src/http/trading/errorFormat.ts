/**
 * The trading hosts' error body, Alpaca's: `{"code": <8-digit int>, "message": "…"}`. The code is the HTTP
 * status followed by `10000` (40110000, 40310000, 40410000, 42210000, …), as every code observed at the
 * anchor is; a route may give a more specific one as its HttpError code (eight digits).
 *
 * Decision: a query or path parameter that fails validation is a 422 with 42210000, as the anchor answers
 * parameters it does not accept ("Input parameters are not recognized"); a body that is not valid JSON
 * stays a 400 with 40010000 ("request body format is invalid"). A 5xx says nothing more than
 * "internal server error" (the details are in the log). Two exceptions answer 400 (40010000): a query
 * parameter the operation does not declare (strictQuery.ts), and any bad parameter of a route whose anchor
 * document declares 400 for them (route config `invalidParameterStatus: 400`, the `/v3` clock and calendar).
 */
import type { ErrorFormatter, HttpError } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { isUnknownQueryParameter } from "./strictQuery.ts";

/** A route's config: the status of its parameter validation failures (default 422). */
export interface ParameterErrorConfig {
  invalidParameterStatus?: 400 | 422;
}

/** The messages of the anchor for the two authentication failures, kept verbatim. */
export const NOT_AUTHORIZED = "request is not authorized";
export const SCOPE_NOT_AUTHORIZED = "token is not authorized for this scope";

/** Kernel codes of parameter validation failures (see kernel's `toHttpError`). */
const VALIDATION_CODES = new Set(["MISSING_PARAM", "INVALID_PARAM"]);

/** The Alpaca code for a status: the status followed by 10000 (e.g. 404 → 40410000). */
export const alpacaCode = (status: number): number => status * 100_000 + 10_000;

function statusAndMessage(error: HttpError, request: FastifyRequest | undefined): { status: number; message: string } {
  if (error.statusCode >= 500) return { status: error.statusCode, message: "internal server error" };
  if (error.statusCode === 400 && VALIDATION_CODES.has(error.code ?? "")) {
    if (isUnknownQueryParameter(error, request)) return { status: 400, message: error.message };
    const config = request?.routeOptions?.config as ParameterErrorConfig | undefined;
    return { status: config?.invalidParameterStatus ?? 422, message: error.message };
  }
  if (error.code === "INVALID_BODY") return { status: 400, message: "request body format is invalid" };
  return { status: error.statusCode, message: error.message };
}

export const formatError: ErrorFormatter = (error, request) => {
  const { status, message } = statusAndMessage(error, request);
  const code = /^\d{8}$/.test(error.code ?? "") ? Number(error.code) : alpacaCode(status);
  return { statusCode: status, body: { code, message } };
};
