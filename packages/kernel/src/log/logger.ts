/**
 * Structured logs (pino). Secrets never reach a log line: credential headers are redacted, and
 * credential query parameters (`apikey`, `api_key`, `key`, `token`, `client_secret`, `code`) are masked in URLs.
 */
import pino, { type Logger } from "pino";

export type { Logger };

const SECRET_QUERY = /([?&](?:apikey|api_key|key|token|access_token|client_secret|code|refresh_token)=)[^&#]*/gi;

/** Masks credential query parameters of a URL or path. */
export const redactUrl = (url: string) => url.replace(SECRET_QUERY, "$1[REDACTED]");

export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-service-api-key"]',
  'req.headers["x-open-wearables-api-key"]',
  'req.headers["apca-api-key-id"]',
  'req.headers["apca-api-secret-key"]',
  "*.password",
  "*.secret",
  "*.apiKey",
  "*.privateKey",
];

export interface CreateLoggerParameters {
  level?: string;
  name?: string;
  /** Where lines go; default stdout. Tests pass a stream to inspect output. */
  destination?: pino.DestinationStream;
}

export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  return pino(
    {
      level: parameters.level ?? "info",
      name: parameters.name,
      redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
      serializers: {
        req: (req: { method: string; url: string; id?: string; headers?: Record<string, unknown> }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
        err: pino.stdSerializers.err,
      },
    },
    parameters.destination,
  );
}
