import { describe, expect, it } from "vitest";
import { createDefaultAssetUniverse, DEFAULT_LISTINGS } from "./assetListings.ts";
import { AssetNotFoundError, AssetUniverse, assetIdOf } from "./assets.ts";
import { cusipCheckDigit, cusipOf } from "./cusips.ts";

const universe = createDefaultAssetUniverse();

describe("the default universe", () => {
  it("lists at least 30 tradable US equities and 3 crypto pairs", () => {
    const equities = universe.list({ status: "active" }).filter((a) => a.tradable);
    expect(equities.length).toBeGreaterThanOrEqual(30);
    expect(universe.list({ asset_class: "crypto" }).map((a) => a.symbol)).toEqual(
      expect.arrayContaining(["BTC/USD", "ETH/USD", "SOL/USD"]),
    );
  });

  it("has the anchor's fields, in its order, for an equity", () => {
    const aapl = universe.get("AAPL").asset;
    expect(Object.keys(aapl)).toEqual([
      "id",
      "class",
      "exchange",
      "symbol",
      "name",
      "cusip",
      "status",
      "tradable",
      "marginable",
      "maintenance_margin_requirement",
      "margin_requirement_long",
      "margin_requirement_short",
      "shortable",
      "easy_to_borrow",
      "borrow_status",
      "fractionable",
      "attributes",
    ]);
    expect(aapl).toMatchObject({ class: "us_equity", exchange: "NASDAQ", name: "Apple Inc. Common Stock" });
  });

  it("has the crypto fields for a pair", () => {
    expect(universe.get("BTC/USD").asset).toMatchObject({
      class: "crypto",
      exchange: "CRYPTO",
      marginable: false,
      shortable: false,
      fractionable: true,
      min_order_size: "0.0001",
      min_trade_increment: "0.000000001",
      price_increment: "1",
    });
  });

  it("gives every US equity a distinct, well-formed CUSIP and its borrow status; crypto neither", () => {
    const equities = DEFAULT_LISTINGS.map((l) => l.asset).filter((a) => a.class === "us_equity");
    const cusips = equities.map((a) => a.cusip as string);
    expect(new Set(cusips).size).toBe(equities.length);
    for (const cusip of cusips) {
      expect(cusip).toMatch(/^99[0-9A-Z]{4}10\d$/);
      expect(cusip.slice(8)).toBe(cusipCheckDigit(cusip.slice(0, 8)));
    }
    // The standard's own example: Apple's 037833100.
    expect(cusipCheckDigit("03783310")).toBe("0");
    expect(universe.get("AAPL").asset.cusip).toBe(cusipOf("AAPL"));
    expect(universe.get("GME").asset.borrow_status).toBe("hard_to_borrow");
    expect(universe.get("AAPL").asset.borrow_status).toBe("easy_to_borrow");
    const btc = universe.get("BTC/USD").asset;
    expect(btc.cusip).toBeNull();
    expect(btc).not.toHaveProperty("borrow_status");
  });

  it("holds assets for the trading API's refusals", () => {
    const refusals = DEFAULT_LISTINGS.map((l) => l.asset);
    expect(refusals.some((a) => !a.tradable && a.status === "active")).toBe(true);
    expect(refusals.some((a) => a.status === "inactive")).toBe(true);
    expect(refusals.some((a) => a.tradable && a.class === "us_equity" && !a.fractionable)).toBe(true);
    expect(refusals.some((a) => a.tradable && a.class === "us_equity" && !a.shortable)).toBe(true);
    expect(refusals.some((a) => a.shortable && !a.easy_to_borrow)).toBe(true);
  });

  it("has one well-formed, distinct id per asset, stable across runs", () => {
    const ids = DEFAULT_LISTINGS.map((l) => l.asset.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(assetIdOf("AAPL")).toBe(universe.get("AAPL").asset.id);
    // Python's uuid.uuid5(UUID("5d0f3c9e-8b7a-4e21-9c4d-2a6f1e8b3d70"), name) gives the same: RFC 9562 v5.
    expect(assetIdOf("AAPL")).toBe("baca4772-f942-5440-a6a2-1cf1af406e58");
    expect(assetIdOf("BTC/USD")).toBe("2cdd7551-1eb5-5beb-914f-ef48cbeb6026");
  });
});

describe("AssetUniverse.find", () => {
  it.each(["AAPL", "aapl", " AAPL ", "AAPL:NASDAQ", "aapl:nasdaq:us_equity"])("finds AAPL by %j", (text) => {
    expect(universe.find(text)?.asset.symbol).toBe("AAPL");
  });

  it.each(["BTC/USD", "BTCUSD", "btcusd", "btc/usd", "BTC/USD:CRYPTO:crypto"])("finds BTC/USD by %j", (text) => {
    expect(universe.find(text)?.asset.symbol).toBe("BTC/USD");
  });

  it("finds by id in either case", () => {
    const id = universe.get("MSFT").asset.id;
    expect(universe.find(id)?.asset.symbol).toBe("MSFT");
    expect(universe.find(id.toUpperCase())?.asset.symbol).toBe("MSFT");
  });

  it.each(["ZZZZ", "AAPL:NYSE", "AAPL:NASDAQ:crypto", "AAPL:NASDAQ:us_equity:x", "", "BTC-USD"])(
    "finds nothing for %j",
    (text) => {
      expect(universe.find(text)).toBeUndefined();
    },
  );

  it("throws the typed error from get", () => {
    expect(() => universe.get("ZZZZ")).toThrow(AssetNotFoundError);
    expect(() => universe.get("ZZZZ")).toThrow("asset not found for ZZZZ");
  });

  it("refuses two listings with the same symbol", () => {
    expect(() => new AssetUniverse([DEFAULT_LISTINGS[0]!, DEFAULT_LISTINGS[0]!])).toThrow(/duplicate/);
  });
});

describe("AssetUniverse.list", () => {
  it("defaults to us_equity, sorted by class, exchange and symbol", () => {
    const listed = universe.list();
    expect(listed.every((a) => a.class === "us_equity")).toBe(true);
    const keys = listed.map((a) => `${a.exchange}|${a.symbol}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("filters by status, exchange and attributes (any of them)", () => {
    expect(universe.list({ status: "inactive" }).map((a) => a.symbol)).toEqual(["TWTR"]);
    expect(universe.list({ exchange: "arca" }).map((a) => a.symbol)).toEqual(["GLD", "IWM", "SPY"]);
    expect(universe.list({ exchange: "OTC" }).map((a) => a.symbol)).toEqual(["TCEHY"]);
    const withOptions = universe.list({ attributes: ["has_options", "ipo"] });
    expect(withOptions.length).toBeGreaterThan(20);
    expect(withOptions.every((a) => a.attributes.includes("has_options"))).toBe(true);
    expect(universe.list({ attributes: ["ipo"] })).toEqual([]);
  });

  it("answers nothing for an unknown class", () => {
    expect(universe.list({ asset_class: "us_option" })).toEqual([]);
  });
});
