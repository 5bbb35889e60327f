/**
 * How a JSON-RPC call of the indexing client fails, as types (viem style: a literal `name` and an
 * `...ErrorType`), so callers decide by `instanceof` or `name` and never by the wording of a message:
 * - `RpcRequestError`: no usable reply (HTTP status other than 200, timeout, refused or cut connection,
 *   oversized reply, an endpoint indexers cannot use);
 * - `RpcResponseError`: the node answered with a JSON-RPC error (its `code`), or with a reply that is not
 *   the JSON-RPC answer asked for (`code` undefined).
 *
 * Both name the endpoint by its redacted form only (`redactUrl`: RPC URLs carry API keys in their path or
 * query), and redact the node's own text too, so their messages can be logged and shown as they are.
 */
import { redactSecretsInText, redactUrl } from "@platform/kernel";

export interface RpcRequestErrorParameters {
  /** The endpoint as configured (it is redacted here). */
  url: string;
  /** What happened, completing "RPC <endpoint> …", e.g. "answered HTTP 503". */
  details: string;
  /** HTTP status, when the node answered one other than 200. */
  status?: number;
  cause?: unknown;
}

/** A JSON-RPC request that got no usable reply (see the module comment). */
export class RpcRequestError extends Error {
  override name = "RpcRequestError" as const;
  /** The endpoint, redacted. */
  readonly endpoint: string;
  /** HTTP status, when the node answered one other than 200. */
  readonly status: number | undefined;

  constructor(p: RpcRequestErrorParameters) {
    const endpoint = redactUrl(p.url);
    super(redactSecretsInText(`RPC ${endpoint} ${p.details}`), p.cause === undefined ? undefined : { cause: p.cause });
    this.endpoint = endpoint;
    this.status = p.status;
  }
}

export type RpcRequestErrorType = RpcRequestError & { name: "RpcRequestError" };

export interface RpcResponseErrorParameters {
  /** The endpoint as configured (it is redacted here). */
  url: string;
  method: string;
  /** What the node said, or what was wrong with its reply. */
  details: string;
  /** The JSON-RPC error code; undefined when the reply was not a JSON-RPC answer. */
  code?: number;
  /** The JSON-RPC error's `data`, when it had one. */
  data?: unknown;
}

/** The node answered a call with a JSON-RPC error or an unexpected reply (see the module comment). */
export class RpcResponseError extends Error {
  override name = "RpcResponseError" as const;
  /** The endpoint, redacted. */
  readonly endpoint: string;
  readonly method: string;
  /** The JSON-RPC error code (e.g. -32005 "limit exceeded"); undefined when the reply was not JSON-RPC. */
  readonly code: number | undefined;
  readonly data: unknown;

  constructor(p: RpcResponseErrorParameters) {
    const endpoint = redactUrl(p.url);
    const code = p.code === undefined ? "" : ` (code ${p.code})`;
    super(redactSecretsInText(`RPC ${endpoint} answered ${p.method}${code}: ${p.details}`));
    this.endpoint = endpoint;
    this.method = p.method;
    this.code = p.code;
    this.data = p.data;
  }
}

export type RpcResponseErrorType = RpcResponseError & { name: "RpcResponseError" };

/** Either failure of a JSON-RPC call. */
export type RpcErrorType = RpcRequestErrorType | RpcResponseErrorType;
