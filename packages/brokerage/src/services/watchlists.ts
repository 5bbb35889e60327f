/**
 * Watchlists of a trading account (`/v2/watchlists…`): named, ordered lists of the market's assets. Symbols
 * are resolved by the market in any of its forms (`aapl`, `BTCUSD`, an asset id) and stored as the asset's
 * symbol, so a list holds each asset once. Every change runs in one transaction under the account's watchlist
 * lock (`store/watchlistsRepository.ts`): a refused change (unknown asset, limit, taken name) leaves nothing.
 */

import { WatchlistNotFoundError, WatchlistSymbolNotFoundError } from "../domain/watchlistErrors.ts";
import {
  assertRoomForWatchlist,
  describeRef,
  distinctSymbols,
  type WatchlistRef,
  withSymbol,
} from "../domain/watchlists.ts";
import type { AssetObject } from "../market/assets.ts";
import { AssetNotFoundError } from "../market/assets.ts";
import type { MarketService } from "../services/market.ts";
import type {
  StoredWatchlist,
  WatchlistRow,
  WatchlistsRepository,
  WatchlistWriter,
} from "../store/watchlistsRepository.ts";

/** A watchlist as `GET /v2/watchlists` lists it (the official client's `WatchlistWithoutAsset`). */
export interface WatchlistSummary {
  id: string;
  account_id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

/** The anchor's watchlist object: its assets in the order they were added. */
export interface WatchlistObject extends WatchlistSummary {
  assets: AssetObject[];
}

/** The market's asset lookup, the only part of the market watchlists use. */
export type WatchlistMarket = Pick<MarketService, "getAsset">;

const toSummary = (row: WatchlistRow): WatchlistSummary => ({
  id: row.id,
  account_id: row.account_id,
  name: row.name,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export function createWatchlistsService({
  repository,
  market,
}: {
  repository: WatchlistsRepository;
  market: WatchlistMarket;
}) {
  /** The asset's symbol as the market lists it. @throws {AssetNotFoundError} for an unknown one. */
  const symbolOf = (symbolOrId: string): string => market.getAsset(symbolOrId).symbol;

  /** The symbols' asset objects; a stored symbol the market no longer lists is left out, not an error. */
  const assetsOf = (symbols: readonly string[]): AssetObject[] =>
    symbols.flatMap((symbol) => {
      try {
        return [market.getAsset(symbol)];
      } catch (error) {
        if (error instanceof AssetNotFoundError) return [];
        throw error;
      }
    });

  const toObject = (stored: StoredWatchlist): WatchlistObject => ({
    ...toSummary(stored),
    assets: assetsOf(stored.symbols),
  });

  /** The watchlist `ref` names, inside a write. @throws {WatchlistNotFoundError} */
  async function found(writer: WatchlistWriter, ref: WatchlistRef): Promise<StoredWatchlist> {
    const stored = await writer.find(ref);
    if (!stored) throw new WatchlistNotFoundError(describeRef(ref));
    return stored;
  }

  /** Changes the watchlist `ref` names with `change` (in one transaction) and answers it as it is then. */
  const change = (
    accountId: string,
    ref: WatchlistRef,
    changeWith: (writer: WatchlistWriter, stored: StoredWatchlist) => Promise<StoredWatchlist>,
  ): Promise<WatchlistObject> =>
    repository.write(accountId, async (writer) => toObject(await changeWith(writer, await found(writer, ref))));

  return {
    /** The account's watchlists (without their assets), oldest first. */
    list: async (accountId: string): Promise<WatchlistSummary[]> => (await repository.list(accountId)).map(toSummary),

    /**
     * One watchlist of the account with its assets.
     * @throws {WatchlistNotFoundError} when the account has none by this id or name.
     */
    async get(accountId: string, ref: WatchlistRef): Promise<WatchlistObject> {
      const stored = await repository.find(accountId, ref);
      if (!stored) throw new WatchlistNotFoundError(describeRef(ref));
      return toObject(stored);
    },

    /**
     * A new watchlist with the given symbols (repeats ignored, order kept).
     * @throws {AssetNotFoundError} for a symbol the market does not list.
     * @throws {WatchlistNameTakenError} when the account has a watchlist of this name.
     * @throws {WatchlistLimitError} when the account has as many watchlists as allowed, or too many symbols.
     */
    async create(accountId: string, { name, symbols = [] }: { name: string; symbols?: string[] }) {
      const listed = distinctSymbols(symbols.map(symbolOf));
      return repository.write(accountId, async (writer) => {
        assertRoomForWatchlist(await writer.count());
        const row = await writer.insert(name);
        await writer.setSymbols(row.id, listed);
        return toObject({ ...row, symbols: listed });
      });
    },

    /**
     * Renames the watchlist and/or replaces its symbols (those given; the rest is kept).
     * @throws {WatchlistNotFoundError}, {AssetNotFoundError}, {WatchlistNameTakenError}, {WatchlistLimitError}
     */
    async update(accountId: string, ref: WatchlistRef, update: { name?: string; symbols?: string[] }) {
      const listed = update.symbols && distinctSymbols(update.symbols.map(symbolOf));
      return change(accountId, ref, async (writer, stored) => {
        const row = await writer.touch(stored.id, update.name);
        if (listed) await writer.setSymbols(stored.id, listed);
        return { ...row, symbols: listed ?? stored.symbols };
      });
    },

    /**
     * Adds the asset at the end of the watchlist; a symbol listed already keeps its place.
     * @throws {WatchlistNotFoundError}, {AssetNotFoundError}, {WatchlistLimitError}
     */
    async addAsset(accountId: string, ref: WatchlistRef, symbolOrId: string) {
      const symbol = symbolOf(symbolOrId);
      return change(accountId, ref, async (writer, stored) => {
        const symbols = withSymbol(stored.symbols, symbol);
        await writer.appendSymbol(stored.id, symbol);
        return { ...(await writer.touch(stored.id)), symbols };
      });
    },

    /**
     * Removes the asset from the watchlist.
     * @throws {WatchlistNotFoundError}; {WatchlistSymbolNotFoundError} when it is not listed.
     */
    async removeAsset(accountId: string, ref: WatchlistRef, symbolOrId: string) {
      // A symbol the market no longer lists may still be stored: it is removed by its own name.
      let symbol: string;
      try {
        symbol = symbolOf(symbolOrId);
      } catch (error) {
        if (!(error instanceof AssetNotFoundError)) throw error;
        symbol = symbolOrId.toUpperCase();
      }
      return change(accountId, ref, async (writer, stored) => {
        if (!(await writer.removeSymbol(stored.id, symbol))) throw new WatchlistSymbolNotFoundError(symbol);
        return { ...(await writer.touch(stored.id)), symbols: stored.symbols.filter((s) => s !== symbol) };
      });
    },

    /**
     * Deletes the watchlist.
     * @throws {WatchlistNotFoundError} when the account has none by this id or name.
     */
    async delete(accountId: string, ref: WatchlistRef): Promise<void> {
      await repository.write(accountId, async (writer) => {
        await writer.delete((await found(writer, ref)).id);
      });
    },
  };
}

export type WatchlistsService = ReturnType<typeof createWatchlistsService>;
