import { describe, expect, it } from "vitest";
import { WatchlistLimitError } from "./watchlistErrors.ts";
import {
  assertRoomForWatchlist,
  describeRef,
  distinctSymbols,
  MAX_SYMBOLS_PER_WATCHLIST,
  MAX_WATCHLISTS_PER_ACCOUNT,
  withSymbol,
} from "./watchlists.ts";

const many = (n: number) => Array.from({ length: n }, (_, i) => `S${i}`);

describe("distinctSymbols", () => {
  it("keeps the first occurrence of each symbol in place", () => {
    expect(distinctSymbols(["B", "A", "B", "C", "A"])).toEqual(["B", "A", "C"]);
    expect(distinctSymbols([])).toEqual([]);
  });

  it(`allows ${MAX_SYMBOLS_PER_WATCHLIST} distinct symbols, repeats not counted, and no more`, () => {
    expect(distinctSymbols([...many(MAX_SYMBOLS_PER_WATCHLIST), "S0", "S1"])).toHaveLength(MAX_SYMBOLS_PER_WATCHLIST);
    expect(() => distinctSymbols(many(MAX_SYMBOLS_PER_WATCHLIST + 1))).toThrow(
      new WatchlistLimitError("symbols", MAX_SYMBOLS_PER_WATCHLIST),
    );
  });
});

describe("withSymbol", () => {
  it("appends a new symbol and leaves a listed one where it is", () => {
    expect(withSymbol(["A", "B"], "C")).toEqual(["A", "B", "C"]);
    expect(withSymbol(["A", "B"], "A")).toEqual(["A", "B"]);
  });

  it("refuses a new symbol on a full list, not a listed one", () => {
    const full = many(MAX_SYMBOLS_PER_WATCHLIST);
    expect(withSymbol(full, "S7")).toEqual(full);
    expect(() => withSymbol(full, "NEW")).toThrow(WatchlistLimitError);
  });
});

describe("assertRoomForWatchlist", () => {
  it(`allows up to ${MAX_WATCHLISTS_PER_ACCOUNT} watchlists`, () => {
    expect(() => assertRoomForWatchlist(MAX_WATCHLISTS_PER_ACCOUNT - 1)).not.toThrow();
    expect(() => assertRoomForWatchlist(MAX_WATCHLISTS_PER_ACCOUNT)).toThrow(
      expect.objectContaining({ name: "WatchlistLimitError", limit: "watchlists" }),
    );
  });
});

it("describeRef names a watchlist by id or name", () => {
  expect(describeRef({ id: "x" })).toBe("x");
  expect(describeRef({ name: "Tech" })).toBe("name Tech");
});
