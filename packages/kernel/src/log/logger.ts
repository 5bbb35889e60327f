/**
 * Structured logs (pino). Secrets never reach a log line: credential headers and fields are redacted, and
 * the request URL and every string of a logged error (message, stack, any property, causes) go through
 * `redact.ts` (URLs cut to their origin, credential query parameters masked).
 */
import pino, { type Logger } from "pino";
import { redactSecretsDeep, redactSecretsInText } from "./redact.ts";

export type { Logger };

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
          url: redactSecretsInText(req.url),
        }),
        err: serializeError,
      },
    },
    parameters.destination,
  );
}

/** pino's error serializer (type, message and stack with causes, own properties), every string redacted. */
function serializeError(err: unknown): unknown {
  return redactSecretsDeep(pino.stdSerializers.err(err as Error));
}
