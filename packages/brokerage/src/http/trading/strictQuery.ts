/**
 * Query parameters an operation does not declare are refused on the market data host, as Alpaca's data API
 * answers them with a 400. The trading hosts ignore them, as Alpaca's trading API does (a real client,
 * `@master-chief/alpaca`, sends path arguments as query parameters too and works against Alpaca).
 * Every route's querystring schema is closed (`additionalProperties: false`; a route without one gets an
 * empty closed one), so a parameter we do not implement never passes as if it had been applied (a client
 * asking `GET /v2/orders?asset_class=crypto` of a server that ignored it got equity orders).
 *
 * Decision (no source we found says what Alpaca answers to an undeclared parameter; the issue that asked for
 * this reports 400): such a parameter is a 400 `{"code":40010000,"message":"query.<name>: unknown field"}`,
 * while a declared parameter with a bad value stays the 422 of errorFormat.ts. Every parameter Alpaca's
 * documents declare for an operation we serve is declared, so its clients never meet the 400.
 */
import type { HttpError } from "@platform/kernel";
import type { FastifyRequest, RouteOptions } from "fastify";

interface ObjectSchema {
  type?: string;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
}

/** An `onRoute` hook: closes the route's querystring schema. */
export function closeQuerystring(route: RouteOptions): void {
  const schema = route.schema as { querystring?: ObjectSchema } | undefined;
  if (!schema) return;
  const querystring = schema.querystring ?? { type: "object", properties: {} };
  // A copy: one schema object may serve several routes, and is theirs to keep as written.
  schema.querystring = { ...querystring, additionalProperties: false };
}

/**
 * Whether `error` is the validation failure of a query parameter the route does not declare: a parameter
 * failure naming a parameter that the request's query holds and the route's querystring schema lacks.
 */
export function isUnknownQueryParameter(error: HttpError, request: FastifyRequest | undefined): boolean {
  if (error.code !== "INVALID_PARAM" || error.param === undefined || !request) return false;
  const schema = request.routeOptions?.schema?.querystring as ObjectSchema | undefined;
  // Only a closed schema (the data host's) refuses undeclared parameters; on an open one (the trading hosts)
  // a failure naming such a parameter is about its value (a NUL in it), a 422 like any bad value.
  if (schema?.additionalProperties !== false) return false;
  const query = request.query as Record<string, unknown> | undefined;
  const declared = schema.properties ?? {};
  return query !== undefined && Object.hasOwn(query, error.param) && !Object.hasOwn(declared, error.param);
}
