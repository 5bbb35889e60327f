/**
 * The OAuth scopes of the trading API (Alpaca's): none requested = read-only access. Scope enforcement
 * for the trading hosts happens in one place, `requiredScope` below, which the trading routes' auth hook
 * asks for every request (the next issues add routes to the table, not checks to routes).
 */

export const SCOPES = ["account:write", "trading", "data"] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope lets an application do, in words, for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "account:write": "Change your account configuration and watchlists",
  trading: "Place, cancel or modify orders",
  data: "Access market data",
};

/** Always granted: read access to accounts, orders and positions. */
export const READ_ONLY_DESCRIPTION = "See your account, orders and positions";

export class InvalidScopeError extends Error {
  override name = "InvalidScopeError" as const;
  constructor(readonly scope: string) {
    super(`unknown scope "${scope}"; known scopes: ${SCOPES.join(", ")}`);
  }
}
export type InvalidScopeErrorType = InvalidScopeError & { name: "InvalidScopeError" };

/**
 * `"trading  data"` → `["trading", "data"]` (space-delimited, RFC 6749 §3.3; duplicates dropped, order
 * kept as canonical `SCOPES` order). Empty or absent = `[]` (read-only).
 * @throws {InvalidScopeError} for a scope that is not one of `SCOPES`.
 */
export function parseScope(raw: string | undefined): Scope[] {
  const requested = new Set((raw ?? "").split(" ").filter(Boolean));
  for (const s of requested) if (!(SCOPES as readonly string[]).includes(s)) throw new InvalidScopeError(s);
  return SCOPES.filter((s) => requested.has(s));
}

/** The space-delimited form stored and returned in the token grant's `scope`. */
export const formatScope = (scopes: readonly Scope[]): string => scopes.join(" ");

/**
 * The scope a trading request needs, or `undefined` when read-only access is enough. Anchor: Alpaca's scope
 * descriptions ("trading: place, cancel or modify orders"; "account:write: account configurations and
 * watchlists"; reads need no scope).
 */
export function requiredScope(method: string, path: string): Scope | undefined {
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return undefined;
  if (path.startsWith("/v2/orders") || path.startsWith("/v2/positions")) return "trading";
  if (path.startsWith("/v2/account/configurations") || path.startsWith("/v2/watchlists")) return "account:write";
  // Any other write needs the broadest scope until a route says otherwise (deny by default).
  return "account:write";
}
