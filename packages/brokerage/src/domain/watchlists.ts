/**
 * The rules of watchlists (reference §2.2; the official client's `WatchlistsApi`): a name of 1 to 64
 * characters, unique per account; symbols kept in the order they were added, each once. The anchor does not
 * publish its limits; ours bound what one account can store: 200 watchlists of 1,000 symbols each.
 */
import { WatchlistLimitError } from "./watchlistErrors.ts";

/** Most watchlists one account may have. */
export const MAX_WATCHLISTS_PER_ACCOUNT = 200;
/** Most symbols one watchlist may hold. */
export const MAX_SYMBOLS_PER_WATCHLIST = 1_000;
/** Longest watchlist name, in characters (the anchor's "up to 64 characters"). */
export const MAX_WATCHLIST_NAME_LENGTH = 64;

/** A watchlist named by its id (`/v2/watchlists/{watchlist_id}`) or its name (`/v2/watchlists:by_name`). */
export type WatchlistRef = { id: string } | { name: string };

/** How a ref reads in messages and logs. */
export const describeRef = (ref: WatchlistRef): string => ("id" in ref ? ref.id : `name ${ref.name}`);

/**
 * The symbols in the order given, each once (the first occurrence keeps its place: a repeated symbol is
 * ignored, as adding a symbol already listed is).
 * @throws {WatchlistLimitError} when more than {@link MAX_SYMBOLS_PER_WATCHLIST} distinct symbols remain.
 */
export function distinctSymbols(symbols: readonly string[]): string[] {
  const distinct = [...new Set(symbols)];
  if (distinct.length > MAX_SYMBOLS_PER_WATCHLIST) throw new WatchlistLimitError("symbols", MAX_SYMBOLS_PER_WATCHLIST);
  return distinct;
}

/**
 * The symbols after adding `symbol` at the end; the same list when it is there already.
 * @throws {WatchlistLimitError} when the list is full.
 */
export const withSymbol = (symbols: readonly string[], symbol: string): string[] =>
  symbols.includes(symbol) ? [...symbols] : distinctSymbols([...symbols, symbol]);

/**
 * Whether an account with `count` watchlists may create one more.
 * @throws {WatchlistLimitError} when it has {@link MAX_WATCHLISTS_PER_ACCOUNT} already.
 */
export function assertRoomForWatchlist(count: number): void {
  if (count >= MAX_WATCHLISTS_PER_ACCOUNT) throw new WatchlistLimitError("watchlists", MAX_WATCHLISTS_PER_ACCOUNT);
}
