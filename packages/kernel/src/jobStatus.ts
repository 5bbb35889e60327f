/**
 * Job status snapshots for operators: bigints become decimal strings, errors their name and message, and
 * every string is redacted (`log/redact.ts`: error messages name the RPC they failed on, and RPC URLs
 * often carry an API key in their path or query).
 *
 * @example
 * toJobStatus({ next: 12n, lastError: "RPC https://x.io/v3/KEY answered HTTP 500" })
 * // { next: "12", lastError: "RPC https://x.io/… answered HTTP 500" }
 */
import { redactSecretsInText } from "./log/redact.ts";
import type { JobStatus } from "./service.ts";

function safe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return redactSecretsInText(value);
  if (Array.isArray(value)) return value.map(safe);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), safe(v)]));
  // An error's message and name are not own enumerable properties: without this it would show as {}.
  if (value instanceof Error) return { name: value.name, message: safe(value.message) };
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safe(v)]));
  }
  return value;
}

/** A JSON-safe, secret-free copy of a job's status (see the module comment). */
export function toJobStatus(value: Record<string, unknown>): JobStatus {
  return safe(value) as JobStatus;
}
