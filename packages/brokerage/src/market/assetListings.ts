/**
 * The listings of our market: well-known US equities and ETFs on their primary exchanges, a few crypto
 * pairs, and some assets that exist to exercise the trading API's refusals (not tradable, inactive, not
 * fractionable, not shortable, hard to borrow). Reference prices are round numbers near the assets' 2025
 * levels; they anchor the simulated prices, nothing more.
 */
import {
  type AssetAttribute,
  type AssetObject,
  AssetUniverse,
  assetIdOf,
  type Exchange,
  type ListedAsset,
} from "./assets.ts";
import { cusipOf } from "./cusips.ts";

/** What a listing row may override from the defaults of its class. */
type EquityFlags = Partial<
  Pick<
    AssetObject,
    "status" | "tradable" | "marginable" | "shortable" | "easy_to_borrow" | "fractionable" | "attributes"
  >
> & { margin?: number; spreadBps?: number; tradesPerMinute?: number };

const COMMON_ATTRIBUTES: AssetAttribute[] = ["fractional_eh_enabled", "has_options"];

/** A US equity listing with its class defaults (tests and the test feed add their own). */
export function equity(
  symbol: string,
  exchange: Exchange,
  name: string,
  referencePrice: number,
  annualVolatility: number,
  flags: EquityFlags = {},
): ListedAsset {
  const margin = flags.margin ?? (flags.marginable === false ? 100 : 30);
  const easyToBorrow = flags.easy_to_borrow ?? flags.shortable ?? true;
  return {
    asset: {
      id: assetIdOf(symbol),
      class: "us_equity",
      exchange,
      symbol,
      name,
      cusip: cusipOf(symbol),
      status: flags.status ?? "active",
      tradable: flags.tradable ?? true,
      marginable: flags.marginable ?? true,
      maintenance_margin_requirement: margin,
      margin_requirement_long: String(margin),
      margin_requirement_short: String(margin),
      shortable: flags.shortable ?? true,
      easy_to_borrow: easyToBorrow,
      borrow_status: easyToBorrow ? "easy_to_borrow" : "hard_to_borrow",
      fractionable: flags.fractionable ?? true,
      attributes: [...(flags.attributes ?? COMMON_ATTRIBUTES)],
    },
    referencePrice,
    annualVolatility,
    spreadBps: flags.spreadBps ?? 3,
    tradesPerMinute: flags.tradesPerMinute ?? 30,
  };
}

function crypto(
  base: string,
  name: string,
  referencePrice: number,
  annualVolatility: number,
  increments: { minOrderSize: string; priceIncrement: string; spreadBps: number },
): ListedAsset {
  const symbol = `${base}/USD`;
  return {
    asset: {
      id: assetIdOf(symbol),
      class: "crypto",
      exchange: "CRYPTO",
      symbol,
      name: `${name} / US Dollar`,
      cusip: null,
      status: "active",
      tradable: true,
      marginable: false,
      maintenance_margin_requirement: 100,
      margin_requirement_long: "100",
      margin_requirement_short: "100",
      shortable: false,
      easy_to_borrow: false,
      fractionable: true,
      attributes: [],
      min_order_size: increments.minOrderSize,
      min_trade_increment: "0.000000001",
      price_increment: increments.priceIncrement,
    },
    referencePrice,
    annualVolatility,
    spreadBps: increments.spreadBps,
    tradesPerMinute: 20,
  };
}

const ETF = { spreadBps: 1, tradesPerMinute: 60, attributes: COMMON_ATTRIBUTES };
const NOT_TRADABLE = { tradable: false, marginable: false, shortable: false, fractionable: false, attributes: [] };

/** Every listing of the default market. */
export const DEFAULT_LISTINGS: readonly ListedAsset[] = [
  equity("AAPL", "NASDAQ", "Apple Inc. Common Stock", 230, 0.25, { tradesPerMinute: 60 }),
  equity("MSFT", "NASDAQ", "Microsoft Corporation Common Stock", 430, 0.22, { tradesPerMinute: 60 }),
  equity("AMZN", "NASDAQ", "Amazon.com, Inc. Common Stock", 220, 0.3, { tradesPerMinute: 60 }),
  equity("GOOGL", "NASDAQ", "Alphabet Inc. Class A Common Stock", 190, 0.28),
  equity("META", "NASDAQ", "Meta Platforms, Inc. Class A Common Stock", 650, 0.35),
  equity("NVDA", "NASDAQ", "NVIDIA Corporation Common Stock", 180, 0.45, { tradesPerMinute: 60 }),
  equity("TSLA", "NASDAQ", "Tesla, Inc. Common Stock", 400, 0.6, { margin: 40, spreadBps: 4, tradesPerMinute: 60 }),
  equity("NFLX", "NASDAQ", "Netflix, Inc. Common Stock", 110, 0.35),
  equity("AMD", "NASDAQ", "Advanced Micro Devices, Inc. Common Stock", 160, 0.5),
  equity("INTC", "NASDAQ", "Intel Corporation Common Stock", 25, 0.45, { spreadBps: 4 }),
  equity("CSCO", "NASDAQ", "Cisco Systems, Inc. Common Stock (DE)", 60, 0.22),
  equity("ADBE", "NASDAQ", "Adobe Inc. Common Stock", 400, 0.32),
  equity("PEP", "NASDAQ", "PepsiCo, Inc. Common Stock", 145, 0.18),
  equity("COST", "NASDAQ", "Costco Wholesale Corporation Common Stock", 950, 0.2),
  equity("WMT", "NASDAQ", "Walmart Inc. Common Stock", 100, 0.2),
  equity("QQQ", "NASDAQ", "Invesco QQQ Trust, Series 1", 520, 0.2, ETF),
  equity("JPM", "NYSE", "JPMorgan Chase & Co. Common Stock", 260, 0.25),
  equity("BAC", "NYSE", "Bank of America Corporation Common Stock", 45, 0.27),
  equity("KO", "NYSE", "Coca-Cola Company (The) Common Stock", 70, 0.15),
  equity("DIS", "NYSE", "Walt Disney Company (The) Common Stock", 115, 0.28),
  equity("XOM", "NYSE", "Exxon Mobil Corporation Common Stock", 115, 0.25),
  equity("CVX", "NYSE", "Chevron Corporation Common Stock", 155, 0.25),
  equity("JNJ", "NYSE", "Johnson & Johnson Common Stock", 160, 0.16),
  equity("PG", "NYSE", "Procter & Gamble Company (The) Common Stock", 165, 0.16),
  equity("V", "NYSE", "Visa Inc.", 340, 0.2),
  equity("MA", "NYSE", "Mastercard Incorporated Common Stock", 560, 0.22),
  equity("IBM", "NYSE", "International Business Machines Corporation Common Stock", 250, 0.25),
  equity("BA", "NYSE", "Boeing Company (The) Common Stock", 200, 0.35),
  equity("T", "NYSE", "AT&T Inc.", 27, 0.2),
  equity("MCD", "NYSE", "McDonald's Corporation Common Stock", 300, 0.17),
  equity("UNH", "NYSE", "UnitedHealth Group Incorporated Common Stock (DE)", 320, 0.35),
  // Hard to borrow: shortable, but not easy to borrow; full margin.
  equity("GME", "NYSE", "GameStop Corporation Common Stock", 25, 0.8, {
    easy_to_borrow: false,
    margin: 100,
    spreadBps: 10,
  }),
  // Whole shares only, at a price where notional orders round to nothing.
  equity("BRK.A", "NYSE", "Berkshire Hathaway Inc.", 730_000, 0.18, {
    fractionable: false,
    attributes: [],
    tradesPerMinute: 2,
  }),
  // Recently listed: neither shortable nor marginable.
  equity("CRCL", "NYSE", "Circle Internet Group, Inc. Class A Common Stock", 120, 0.9, {
    shortable: false,
    marginable: false,
    fractionable: false,
    attributes: [],
    spreadBps: 8,
  }),
  equity("SPY", "ARCA", "SPDR S&P 500 ETF Trust", 600, 0.16, ETF),
  equity("IWM", "ARCA", "iShares Russell 2000 ETF", 220, 0.22, ETF),
  equity("GLD", "ARCA", "SPDR Gold Trust, SPDR Gold Shares", 300, 0.15, ETF),
  // Listed over the counter: the anchor lists such assets but does not trade them.
  equity("TCEHY", "OTC", "Tencent Holdings Ltd. Unsponsored ADR (Cayman Islands)", 70, 0.35, NOT_TRADABLE),
  // Delisted in 2022: inactive.
  equity("TWTR", "NYSE", "Twitter, Inc. Common Stock", 53.7, 0.4, { ...NOT_TRADABLE, status: "inactive" }),
  crypto("BTC", "Bitcoin", 95_000, 0.55, { minOrderSize: "0.0001", priceIncrement: "1", spreadBps: 5 }),
  crypto("ETH", "Ethereum", 3_300, 0.7, { minOrderSize: "0.001", priceIncrement: "0.1", spreadBps: 6 }),
  crypto("SOL", "Solana", 180, 0.9, { minOrderSize: "0.01", priceIncrement: "0.01", spreadBps: 10 }),
  crypto("LTC", "Litecoin", 100, 0.8, { minOrderSize: "0.01", priceIncrement: "0.01", spreadBps: 12 }),
  crypto("DOGE", "Dogecoin", 0.25, 1, { minOrderSize: "1", priceIncrement: "0.00001", spreadBps: 15 }),
];

/** The universe of the default market. */
export const createDefaultAssetUniverse = (): AssetUniverse => new AssetUniverse(DEFAULT_LISTINGS);
