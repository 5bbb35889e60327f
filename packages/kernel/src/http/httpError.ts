/**
 * The one error shape routes throw and the kernel produces from framework errors (validation,
 * malformed JSON, oversized bodies, unknown routes). Each service's `ErrorFormatter` turns it into
 * that service's documented error body.
 */
import { redactSecretsInText } from "../log/redact.ts";

export class HttpError extends Error {
  override name = "HttpError" as const;
  constructor(
    public readonly statusCode: number,
    message: string,
    /** Service-specific machine code, e.g. `INVALID_PARAM`. */
    public readonly code?: string,
    /** The request parameter at fault, when there is one. */
    public readonly param?: string,
  ) {
    super(message);
  }
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }[];
  validationContext?: string;
}

export type HttpErrorType = HttpError & { name: "HttpError" };

/**
 * Maps anything thrown while handling a request to the HttpError the answer shows: unknown errors become a
 * 500 that says nothing more, and every message is redacted (`log/redact.ts`), so that an RPC URL in a
 * message (and the API key in it) never reaches a client, whichever status and formatter.
 */
export function toHttpError(error: unknown): HttpError {
  const mapped = mapToHttpError(error);
  const message = redactSecretsInText(mapped.message);
  return message === mapped.message ? mapped : new HttpError(mapped.statusCode, message, mapped.code, mapped.param);
}

function mapToHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const e = error as FastifyLikeError;
  if (e?.validation?.[0]) {
    const v = e.validation[0];
    const location =
      { querystring: "query", params: "path" }[e.validationContext ?? ""] ?? e.validationContext ?? "request";
    const field =
      v.keyword === "required"
        ? String(v.params.missingProperty)
        : v.keyword === "additionalProperties"
          ? String(v.params.additionalProperty)
          : v.instancePath.replace(/^\//, "").replace(/\//g, ".");
    const message =
      v.keyword === "additionalProperties"
        ? "unknown field"
        : v.keyword === "required"
          ? "field required"
          : (v.message ?? "invalid value");
    const path = field ? `${location}.${field}` : location;
    return new HttpError(
      400,
      `${path}: ${message}`,
      v.keyword === "required" ? "MISSING_PARAM" : "INVALID_PARAM",
      // An unknown field keeps its name even when it is empty (`?=`), so the service can tell which one it was.
      v.keyword === "additionalProperties" ? field : field || undefined,
    );
  }
  switch (e?.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new HttpError(413, "Request body is too large", "BODY_TOO_LARGE");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new HttpError(415, "Unsupported content type; send application/json", "UNSUPPORTED_MEDIA_TYPE");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new HttpError(400, "Request body is empty but content-type is application/json", "INVALID_BODY");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new HttpError(400, "Request body is not valid JSON", "INVALID_BODY");
  }
  if (error instanceof SyntaxError && e.statusCode === 400) {
    return new HttpError(400, "Request body is not valid JSON", "INVALID_BODY");
  }
  if (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new HttpError(e.statusCode, e.message, e.code);
  }
  return new HttpError(500, "Internal server error", "INTERNAL_SERVER_ERROR");
}
