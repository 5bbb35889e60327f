/**
 * Secrets out of text that leaves the process: log lines, job status, API answers. One place, used by the
 * logger's serializers, `toJobStatus`, the HTTP error answers and the RPC error types, so that call sites
 * need not remember to redact.
 *
 * The secrets are those of URLs: RPC providers put their API key in the path (`/v3/KEY`) or the query
 * (`?apikey=`), and any URL may carry `user:password@`. An absolute URL is cut to its origin; a relative
 * one (a request target such as `/x?apikey=…`) keeps its path, with credential query parameters masked.
 */

/** Credential query parameters, masked wherever they appear. */
const CREDENTIAL_QUERY =
  /([?&](?:apikey|api_key|key|token|access_token|client_secret|code|refresh_token)=)[^&#\s"'<>]*/gi;

/** An absolute URL in text (any scheme: http, ws, postgres, redis…), up to a delimiter. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>),;]+/gi;

const MASK = "[REDACTED]";

/**
 * An endpoint URL as it may be shown: `scheme://host[:port]`, followed by `/…` when it had a path or a
 * query (no userinfo, path or query). Unparsable text becomes `[url]`.
 *
 * @example
 * redactUrl("https://mainnet.infura.io/v3/0123abcd") // "https://mainnet.infura.io/…"
 * redactUrl("http://user:pass@10.0.0.1:8545")        // "http://10.0.0.1:8545"
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${(u.pathname === "/" || u.pathname === "") && !u.search ? "" : "/…"}`;
  } catch {
    return "[url]";
  }
}

/**
 * `text` with every absolute URL in it redacted ({@link redactUrl}) and credential query parameters of
 * relative URLs masked.
 *
 * @example
 * redactSecretsInText("RPC https://x.io/v3/KEY answered HTTP 500") // "RPC https://x.io/… answered HTTP 500"
 * redactSecretsInText("/api?apikey=abc&chainid=1")                 // "/api?apikey=[REDACTED]&chainid=1"
 */
export function redactSecretsInText(text: string): string {
  return text.replace(URL_IN_TEXT, redactUrl).replace(CREDENTIAL_QUERY, `$1${MASK}`);
}

/** Deeper than this, a value is replaced (log objects and statuses are shallow; cycles end here). */
const MAX_DEPTH = 8;

/**
 * A copy of a JSON-like value with every string in it redacted ({@link redactSecretsInText}): arrays and
 * plain objects are walked, other values (numbers, dates, buffers…) kept as they are.
 */
export function redactSecretsDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecretsInText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[too deep]";
  if (Array.isArray(value)) return value.map((v) => redactSecretsDeep(v, depth + 1));
  if (ArrayBuffer.isView(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactSecretsDeep(v, depth + 1);
  return out;
}
