/**
 * Job status snapshots for operators: bigints become decimal strings, and URLs inside strings (error
 * messages name the RPC they failed on, and RPC URLs often carry an API key in their path or query)
 * are cut to their origin.
 *
 * @example
 * toJobStatus({ next: 12n, lastError: "RPC https://x.io/v3/KEY answered HTTP 500" })
 * // { next: "12", lastError: "RPC https://x.io/… answered HTTP 500" }
 */
import type { JobStatus } from "./service.ts";

/** `scheme://host[:port]/…` for every http(s)/ws(s) URL in `text` (no userinfo, path or query). */
export function redactUrls(text: string): string {
  return text.replace(/\b(https?|wss?):\/\/[^\s"'<>),;]+/g, (url) => {
    try {
      const u = new URL(url);
      return `${u.protocol}//${u.host}${u.pathname === "/" && !u.search ? "" : "/…"}`;
    } catch {
      return "[url]";
    }
  });
}

function safe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return redactUrls(value);
  if (Array.isArray(value)) return value.map(safe);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), safe(v)]));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safe(v)]));
  }
  return value;
}

export function toJobStatus(value: Record<string, unknown>): JobStatus {
  return safe(value) as JobStatus;
}
