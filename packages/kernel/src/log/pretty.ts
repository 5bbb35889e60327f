/**
 * Log lines for a person at a terminal: pino still builds every line (with its redaction serializers, so a
 * pretty line shows nothing a JSON line would not), and this destination turns each JSON line into one
 * readable line:
 *
 *   12:31:02.113 WARN  brokerage/market-feed  subscriber dropped  symbol=AAPL reason="too slow"
 *
 * An error field adds its message to the line and a short stack below it. Written by hand rather than with
 * pino-pretty: it is small, and it knows the platform's bindings (service, host, component, job).
 */
import type { DestinationStream } from "pino";

export interface PrettyDestinationParameters {
  /** Where formatted lines go (default stdout). */
  out?: { write(text: string): unknown };
  /** ANSI colours (a terminal without NO_COLOR). */
  colors?: boolean;
}

const LEVELS: Record<number, { label: string; color: string }> = {
  10: { label: "TRACE", color: "90" },
  20: { label: "DEBUG", color: "34" },
  30: { label: "INFO ", color: "32" },
  40: { label: "WARN ", color: "33" },
  50: { label: "ERROR", color: "31" },
  60: { label: "FATAL", color: "35;1" },
};

/** Bindings that say where a line comes from: shown together before the message, in this order. */
const CONTEXT_KEYS = ["name", "service", "host", "component", "job"];

/** pino's own fields and Fastify's per-request binding: in every line, read by nobody at a terminal. */
const HIDDEN_KEYS = new Set(["level", "time", "msg", "pid", "hostname", "reqId", ...CONTEXT_KEYS]);

/** Stack frames shown under an error line: enough to find the place, short enough to keep the log readable. */
const STACK_FRAMES = 4;

/** A pino destination that writes each JSON log line as one readable line (plus an error's stack). */
export function createPrettyDestination(parameters: PrettyDestinationParameters = {}): DestinationStream {
  const out = parameters.out ?? process.stdout;
  const colors = parameters.colors ?? false;
  return {
    write(line: string) {
      out.write(formatLogLine(line, colors));
    },
  };
}

/** One JSON log line as text, ending with a newline; a line that is not a JSON object passes unchanged. */
export function formatLogLine(line: string, colors: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line);
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  if (record === null || typeof record !== "object") return line.endsWith("\n") ? line : `${line}\n`;
  const paint = (code: string, text: string) => (colors ? `\u001b[${code}m${text}\u001b[0m` : text);

  const level = LEVELS[record.level as number] ?? { label: String(record.level).padEnd(5), color: "0" };
  const parts = [paint("2", clock(record.time)), paint(level.color, level.label)];
  const context = CONTEXT_KEYS.map((k) => record[k])
    .filter((v) => v !== undefined && v !== null && v !== "")
    .join("/");
  if (context) parts.push(paint("36", context));

  const hidden = new Set(HIDDEN_KEYS);
  let message = typeof record.msg === "string" ? record.msg : "";
  const req = record.req as { method?: string; url?: string } | undefined;
  if (isAccessLine(record) && req) {
    // An access line reads as the request itself: `GET /v2/orders 200 4ms`.
    message = `${req.method} ${req.url} ${record.status} ${record.ms}ms`;
    for (const k of ["req", "status", "ms"]) hidden.add(k);
  }
  const err = record.err && typeof record.err === "object" ? (record.err as LoggedError) : undefined;
  if (err) {
    hidden.add("err");
    // The type and a system error's code say what failed when the message does not (`ECONNREFUSED`).
    const kind = [err.type !== "Error" ? err.type : undefined, err.code].filter(Boolean).join(", ");
    message = `${message}${message ? ": " : ""}${firstLine(err.message ?? "")}${kind ? ` (${kind})` : ""}`;
  }
  if (message) parts.push((record.level as number) >= 50 ? paint("1", message) : message);
  for (const [k, v] of Object.entries(record))
    if (!hidden.has(k)) parts.push(`${paint("2", `${k}=`)}${formatValue(v)}`);

  let text = parts.join(" ");
  if (err) text += errorDetail(err, paint);
  return `${text}\n`;
}

/** An error as pino's (redacting) error serializer wrote it. */
interface LoggedError {
  type?: string;
  code?: string;
  message?: string;
  stack?: string;
}

function isAccessLine(record: Record<string, unknown>): boolean {
  return record.msg === "request" && typeof record.req === "object" && record.status !== undefined;
}

/** `HH:MM:SS.mmm` of the local clock: a terminal's reader knows the date. */
function clock(time: unknown): string {
  const d = new Date(typeof time === "number" || typeof time === "string" ? time : Date.now());
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

function firstLine(text: string): string {
  const i = text.indexOf("\n");
  return i < 0 ? text : text.slice(0, i);
}

/** Items of an array field shown before the count of the others (the JSON line has them all). */
const ARRAY_ITEMS = 4;

/**
 * A field's value on one line: bare when it is a plain word, else quoted or compact JSON; a long array (the
 * migrations a first start applies) shows its first items and how many more, so that the line stays a line.
 */
function formatValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  if (Array.isArray(value) && value.length > ARRAY_ITEMS + 1) {
    const shown = value.slice(0, ARRAY_ITEMS).map((v) => JSON.stringify(v));
    return `[${shown.join(",")},…+${value.length - ARRAY_ITEMS}]`;
  }
  return JSON.stringify(value);
}

/**
 * The rest of an error under its line: the message's other lines (an RPC error's details), then the first
 * stack frames; the frames of causes (pino's `caused by:` sections) are left out, their messages kept.
 */
function errorDetail(err: LoggedError, paint: (code: string, text: string) => string): string {
  const lines: string[] = [];
  const more = (err.message ?? "").split("\n").slice(1);
  for (const l of more) if (l.trim()) lines.push(`    ${l.trim()}`);
  let frames = 0;
  let skipped = 0;
  for (const l of (err.stack ?? "").split("\n")) {
    const trimmed = l.trim();
    if (trimmed.startsWith("at ")) {
      if (frames < STACK_FRAMES) lines.push(paint("2", `    ${trimmed}`));
      else skipped++;
      frames++;
    } else if (/^caused by:/i.test(trimmed)) {
      lines.push(`    ${trimmed}`);
      frames = STACK_FRAMES; // a cause's frames count as skipped: its message is what helps
    }
  }
  if (skipped) lines.push(paint("2", `    … ${skipped} more frames`));
  return lines.length ? `\n${lines.join("\n")}` : "";
}
