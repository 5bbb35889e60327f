/**
 * Structured logs (pino). Secrets never reach a log line: credential headers and fields are redacted, and
 * the request URL and every string of a logged error (message, stack, any property, causes) go through
 * `redact.ts` (URLs cut to their origin, credential query parameters masked).
 *
 * Lines are JSON (for collectors) or, on a terminal, readable text (`pretty.ts`, fed by the same JSON, so
 * redaction applies to both): `LOG_FORMAT`, `LOG_REQUESTS` and `NO_COLOR`, resolved by
 * {@link createConfiguredLogger}.
 */
import pino, { type Logger } from "pino";
import type { Config } from "../config/options.ts";
import { createPrettyDestination } from "./pretty.ts";
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
  /** `pretty`: readable lines (to `destination`, else stdout); default `json`. */
  format?: "json" | "pretty";
  /** ANSI colours in pretty lines; default false. */
  colors?: boolean;
  /** Whether HTTP servers log a line per request ({@link logsRequests}); default true. */
  requests?: boolean;
}

/** On the root logger, inherited by its children (pino's children are `Object.create(parent)`). */
const REQUESTS = Symbol("logRequests");

/** Whether an HTTP server given `logger` writes access log lines: info enabled, and not turned off. */
export function logsRequests(logger: Logger): boolean {
  return logger.isLevelEnabled("info") && (logger as Logger & { [REQUESTS]?: boolean })[REQUESTS] !== false;
}

/** `json` or `pretty` for a LOG_FORMAT value: `auto` is pretty when `stream` (stdout) is a terminal. */
export function resolveLogFormat(
  format: Config["logFormat"],
  stream: { isTTY?: boolean } = process.stdout,
): "json" | "pretty" {
  if (format !== "auto") return format;
  return stream.isTTY ? "pretty" : "json";
}

/** Colours on a terminal, unless NO_COLOR is set to anything but the empty string (no-color.org). */
export function useColors(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

/**
 * The logger of a command, as the options say: LOG_LEVEL; LOG_FORMAT (colours: {@link useColors}); LOG_REQUESTS,
 * whose default keeps access lines in JSON (operators feed them to a collector) and out of a terminal unless
 * LOG_LEVEL is debug or trace.
 */
export function createConfiguredLogger(
  config: Pick<Config, "logLevel" | "logFormat" | "logRequests">,
  env: NodeJS.ProcessEnv = process.env,
  stdout: { isTTY?: boolean } = process.stdout,
): Logger {
  const format = resolveLogFormat(config.logFormat, stdout);
  const verbose = config.logLevel === "debug" || config.logLevel === "trace";
  return createLogger({
    level: config.logLevel,
    format,
    colors: format === "pretty" && useColors(env, stdout),
    requests: config.logRequests ?? (format === "json" || verbose),
  });
}

export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const destination =
    parameters.format === "pretty"
      ? createPrettyDestination({ out: parameters.destination ?? process.stdout, colors: parameters.colors })
      : parameters.destination;
  const logger = pino(
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
    destination,
  );
  (logger as Logger & { [REQUESTS]?: boolean })[REQUESTS] = parameters.requests ?? true;
  return logger;
}

/** pino's error serializer (type, message and stack with causes, own properties), every string redacted. */
function serializeError(err: unknown): unknown {
  return redactSecretsDeep(pino.stdSerializers.err(err as Error));
}
