/**
 * Schemas of the watchlist routes (validation, serialisation and OpenAPI from one definition), with the
 * field names of the anchor and its official client (`Watchlist`, `WatchlistWithoutAsset`,
 * `CreateWatchlistRequest`, `UpdateWatchlistRequest`, `AddAssetToWatchlistRequest`).
 */
import { Type } from "typebox";
import { MAX_SYMBOLS_PER_WATCHLIST, MAX_WATCHLIST_NAME_LENGTH } from "../../domain/watchlists.ts";
import { Asset, errorResponse } from "./schemas.ts";

/** A name of 1 to 64 characters without control characters (which PostgreSQL text may not hold: NUL). */
const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_WATCHLIST_NAME_LENGTH, pattern: "^[^\\x00-\\x1f\\x7f]+$", description });

/** A symbol in any of the market's forms (`AAPL`, `aapl`, `BTC/USD`, `BTCUSD`) or an asset id. */
const SymbolText = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

const SUMMARY_EXAMPLE = {
  id: "3174d6df-7726-44b4-a5bd-7fda5ae6e009",
  account_id: "e6fe16f3-64a4-4921-8928-cadf02f92f98",
  name: "Tech",
  created_at: "2026-01-05T14:10:02.512Z",
  updated_at: "2026-01-05T14:12:45.087Z",
};

const summaryFields = {
  id: Type.String({ format: "uuid", description: "Watchlist id." }),
  account_id: Type.String({ format: "uuid", description: "The account the watchlist belongs to." }),
  name: Type.String({ description: "The watchlist's name, unique in its account (up to 64 characters)." }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time", description: "When its name or assets last changed." }),
};

/** A watchlist without its assets, as the list answers them. */
export const WatchlistWithoutAsset = Type.Object(summaryFields, {
  $id: "WatchlistWithoutAsset",
  examples: [SUMMARY_EXAMPLE],
});

/** `GET /v2/watchlists`: every watchlist of the account without its assets. */
export const WatchlistList = Type.Array(WatchlistWithoutAsset, { examples: [[SUMMARY_EXAMPLE]] });

/** The anchor's watchlist object: its assets in the order they were added. */
export const Watchlist = Type.Object(
  {
    ...summaryFields,
    assets: Type.Array(Asset, { description: "The watchlist's assets, in the order they were added." }),
  },
  { $id: "Watchlist", examples: [{ ...SUMMARY_EXAMPLE, assets: (Asset as { examples?: unknown[] }).examples ?? [] }] },
);

const Symbols = (description: string) =>
  Type.Array(Type.Union([SymbolText("A symbol or asset id."), Type.Null()]), {
    maxItems: MAX_SYMBOLS_PER_WATCHLIST,
    description: `${description} At most ${MAX_SYMBOLS_PER_WATCHLIST}; repeats and nulls are ignored.`,
  });

export const CreateWatchlistRequest = Type.Object(
  {
    name: Name("The watchlist name, unique in the account."),
    symbols: Type.Optional(Symbols("The watchlist's first assets, in order.")),
  },
  { additionalProperties: false, examples: [{ name: "Tech", symbols: ["AAPL", "MSFT", "BTC/USD"] }] },
);

export const UpdateWatchlistRequest = Type.Object(
  {
    name: Type.Optional(Name("The new name.")),
    symbols: Type.Optional(Symbols("The assets that replace the watchlist's, in order.")),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: "At least one of `name` and `symbols`.",
    examples: [{ name: "Tech leaders", symbols: ["NVDA", "AAPL"] }],
  },
);

export const AddAssetToWatchlistRequest = Type.Object(
  { symbol: SymbolText("The asset to add at the end of the watchlist.") },
  { additionalProperties: false, examples: [{ symbol: "TSLA" }] },
);

export const WatchlistIdParams = Type.Object({
  watchlist_id: Type.String({ minLength: 1, description: "The watchlist's id (a UUID)." }),
});

export const WatchlistSymbolParams = Type.Object({
  watchlist_id: WatchlistIdParams.properties.watchlist_id,
  symbol: SymbolText("The symbol to remove (a crypto pair's slash encoded: `BTC%2FUSD`)."),
});

export const WatchlistNameQuery = Type.Object({ name: Name("The watchlist's name.") });

export const watchlistNotFound = errorResponse("The account has no watchlist of this id or name.", {
  code: 40410000,
  message: "watchlist not found",
});

export const assetOrWatchlistNotFound = errorResponse(
  "The account has no watchlist of this id or name, or the market lists no asset of a symbol.",
  { code: 40410000, message: "asset not found for XYZ" },
);

export const watchlistNotValid = errorResponse(
  "The name is taken by another watchlist of the account, a limit is reached, or a parameter is not valid.",
  { code: 42210000, message: "watchlist name is not unique, or some parameters are not valid" },
);

export const symbolOrWatchlistNotFound = errorResponse(
  "The account has no watchlist of this id, or the symbol is not in it.",
  { code: 40410000, message: "symbol XYZ is not in the watchlist" },
);
