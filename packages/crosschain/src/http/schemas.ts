/** Shared request/response schema pieces of the crosschain API. */
import { Type } from "typebox";
import type { ServiceApiErrorCode } from "./errorFormat.ts";

/** The chain ids the spec enumerates. */
const SUPPORTED_CHAIN_IDS = [
  1, 10, 137, 324, 8453, 42161, 59144, 84532, 421614, 11155420, 11155111, 999, 1337,
] as const;

/** A chain id query parameter: an integer from the spec's enumeration. */
export const ChainIdParam = (description?: string) =>
  Type.Unsafe<number>({
    type: "integer",
    minimum: 1,
    enum: [...SUPPORTED_CHAIN_IDS],
    description: description ?? `Chain id; one of ${SUPPORTED_CHAIN_IDS.join(", ")}.`,
  });

export const AddressParam = (description?: string) =>
  Type.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: description ?? "EVM address (0x + 40 hex)." });

/** A 32-byte hex value: a transaction hash by default, or any bytes32 (relay hash) with its own description. */
export const Bytes32Param = (description?: string) =>
  Type.String({ pattern: "^0x[0-9a-fA-F]{64}$", description: description ?? "Transaction hash (0x + 64 hex)." });
export const TxHashParam = Bytes32Param;

/** A token in a quote: the anchor's token object (its address on its chain). */
export const TokenSchema = Type.Object({
  address: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  chainId: Type.Integer(),
});

/** A request id as the examples show it (every answer carries its request's). */
export const EXAMPLE_REQUEST_ID = "8d3c4a52-6f0e-4b1a-9c7d-2e5f1a0b9c84";

/** Every error body of the API (see `errorFormat.ts`). */
export const ServiceApiError = Type.Object({
  type: Type.Literal("ServiceApiError"),
  code: Type.String(),
  status: Type.Integer(),
  message: Type.String(),
  param: Type.Optional(Type.String()),
  id: Type.String(),
});

/** The error body with `example` as the docs' example answer. */
export const ErrorBody = (example: { status: number; code: ServiceApiErrorCode; message: string; param?: string }) =>
  Type.Object(ServiceApiError.properties, {
    examples: [{ type: "ServiceApiError", ...example, id: EXAMPLE_REQUEST_ID }],
  });

/** The 401 every crosschain route answers without a valid bearer key. */
export const UnauthorizedBody = ErrorBody({ status: 401, code: "UNAUTHORIZED", message: "Invalid API key" });

/** A 400 for a query parameter Ajv refused (`param` names it). */
export const InvalidParamBody = (param: string, message: string) =>
  ErrorBody({ status: 400, code: "INVALID_PARAM", message: `query.${param}: ${message}`, param });
