/**
 * Why a watchlist operation can fail, as typed errors (viem style): the repository and the service throw
 * them, the routes answer the anchor's bodies (404 40410000, 422 42210000). An unknown symbol is the
 * market's `AssetNotFoundError` (the anchor's 404 "asset not found for …").
 */

/** No watchlist of this account has this id or name (another account's watchlist is not found either). */
export class WatchlistNotFoundError extends Error {
  override name = "WatchlistNotFoundError" as const;
  constructor(readonly watchlist: string) {
    super("watchlist not found");
  }
}
export type WatchlistNotFoundErrorType = WatchlistNotFoundError & { name: "WatchlistNotFoundError" };

/** The account has a watchlist of this name already (names are unique per account). */
export class WatchlistNameTakenError extends Error {
  override name = "WatchlistNameTakenError" as const;
  constructor(
    readonly watchlistName: string,
    options?: ErrorOptions,
  ) {
    super(`a watchlist named ${JSON.stringify(watchlistName)} exists already`, options);
  }
}
export type WatchlistNameTakenErrorType = WatchlistNameTakenError & { name: "WatchlistNameTakenError" };

/** The account would have more watchlists, or the watchlist more symbols, than allowed. */
export class WatchlistLimitError extends Error {
  override name = "WatchlistLimitError" as const;
  constructor(
    readonly limit: "watchlists" | "symbols",
    readonly max: number,
  ) {
    super(
      limit === "watchlists"
        ? `an account may have at most ${max} watchlists`
        : `a watchlist may hold at most ${max} symbols`,
    );
  }
}
export type WatchlistLimitErrorType = WatchlistLimitError & { name: "WatchlistLimitError" };

/** The symbol to remove is not in the watchlist. */
export class WatchlistSymbolNotFoundError extends Error {
  override name = "WatchlistSymbolNotFoundError" as const;
  constructor(readonly symbol: string) {
    super(`symbol ${symbol} is not in the watchlist`);
  }
}
export type WatchlistSymbolNotFoundErrorType = WatchlistSymbolNotFoundError & {
  name: "WatchlistSymbolNotFoundError";
};

export type WatchlistErrorType =
  | WatchlistNotFoundError
  | WatchlistNameTakenError
  | WatchlistLimitError
  | WatchlistSymbolNotFoundError;
