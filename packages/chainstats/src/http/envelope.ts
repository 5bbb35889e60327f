/**
 * Etherscan's response envelope. Errors are HTTP 200 with `{status:"0", message:"NOTOK", result:"<text>"}`;
 * the texts below are Etherscan's own (docs.etherscan.io/resources/common-error-messages and live
 * responses), except the date/sort ones, which Etherscan does not document.
 */
import type { ErrorFormatter, OpenApiErrors } from "@platform/kernel";
import { Type } from "typebox";

export const notOk = (result: string) => ({ status: "0", message: "NOTOK", result });
export const noRecords = () => ({ status: "0", message: "No records found", result: [] as never[] });

export const ERRORS = {
  missingKey: "Missing/Invalid API Key",
  invalidKey: "Invalid API Key",
  perSecond: (limit: number) => `Max calls per sec rate limit reached (${limit}/sec)`,
  perDay: (count: number, limit: number) => `Max daily rate limit reached. ${count} (100%) of ${limit} day/limit`,
  chainId:
    "Missing or unsupported chainid parameter (required for v2 api), please see chainlist for the list of supported chainids",
  action: "Error! Missing Or invalid Action name",
  pro: "Sorry, it looks like you are trying to access an API Pro endpoint. Contact us to upgrade to API Pro.",
  missingDate: (name: string) => `Error! Missing ${name} parameter, expected format yyyy-MM-dd`,
  invalidDate: (name: string) => `Error! Invalid ${name} format, expected a date as yyyy-MM-dd`,
  dateOrder: "Error! startdate must not be after enddate",
  sort: "Error! Invalid sort order, expected asc or desc",
  rangeTooLarge: (max: number) => `Error! Date range too large, at most ${max} days per query`,
  internal: "Error! Internal error, please try again later",
} as const;

/** Framework errors (unknown route, malformed query) in the same envelope; a request error stays 200 on /v2/api. */
export const formatError: ErrorFormatter = (error, request) => {
  const onApi = request.url.startsWith("/v2/api");
  if (error.statusCode >= 500) return { statusCode: onApi ? 200 : 500, body: notOk(ERRORS.internal) };
  return { statusCode: onApi ? 200 : error.statusCode, body: notOk(`Error! ${error.message}`) };
};

/** The error envelope, for the OpenAPI document (on `/v2/api` it is part of the 200 answer). */
export const errorEnvelope: OpenApiErrors = {
  name: "ErrorEnvelope",
  schema: Type.Object({ status: Type.Literal("0"), message: Type.Literal("NOTOK"), result: Type.String() }),
};
