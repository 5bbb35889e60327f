/**
 * The opaque `page_token` of the historical endpoints, as the anchor's: base64 of the last key returned
 * (`AAPL|B|2026-11-25T15:04:00.000Z` for a bar, `…|T|<time>|<trade id>` for a trade, `…|Q|<time>` for a
 * quote). The next page continues strictly after that key in the query's order (keyset pagination: no row
 * skipped or repeated however the table grows). A token that does not decode to a key of the endpoint's kind
 * is an `InvalidPageTokenError`, never a server error. (A key is ASCII without `>`, `?`, `~`: its base64 has
 * no `+` or `/`, so the token survives a query string unencoded.)
 */
import { InvalidPageTokenError } from "./marketDataErrors.ts";

export type PageKind = "B" | "T" | "Q";

export interface PageKey {
  symbol: string;
  /** Epoch ms of the last item (a bar's bucket start, a trade's or quote's time). */
  t: number;
  /** A trade's id (decimal), for trades only. */
  id?: string;
}

const SYMBOL = /^[A-Z0-9./:-]{1,32}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^\d{1,19}$/;

export function encodePageToken(kind: PageKind, key: PageKey): string {
  const parts = [key.symbol, kind, new Date(key.t).toISOString()];
  if (kind === "T") parts.push(key.id ?? "0");
  return Buffer.from(parts.join("|"), "utf8").toString("base64");
}

/**
 * The key a token holds.
 * @throws {InvalidPageTokenError} for anything this API did not write for `kind`.
 */
export function decodePageToken(kind: PageKind, token: string): PageKey {
  if (token.length > 256 || !/^[A-Za-z0-9+/]+={0,2}$/.test(token)) throw new InvalidPageTokenError();
  const parts = Buffer.from(token, "base64").toString("utf8").split("|");
  const [symbol, tokenKind, time, id] = parts;
  if (parts.length !== (kind === "T" ? 4 : 3) || tokenKind !== kind) throw new InvalidPageTokenError();
  if (!symbol || !SYMBOL.test(symbol) || !time || !TIME.test(time)) throw new InvalidPageTokenError();
  const t = Date.parse(time);
  if (Number.isNaN(t) || new Date(t).toISOString() !== time) throw new InvalidPageTokenError();
  if (kind !== "T") return { symbol, t };
  if (!id || !ID.test(id) || BigInt(id) > 9_223_372_036_854_775_807n) throw new InvalidPageTokenError();
  return { symbol, t, id };
}
