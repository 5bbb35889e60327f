/**
 * The market's asset universe: the anchor's asset objects (`GET /v2/assets`) and the parameters our price
 * process needs for each. Lookup follows the anchor's forms: a symbol in any case, a crypto pair with or
 * without its slash (`BTC/USD`, `BTCUSD`), `{symbol}:{exchange}`, `{symbol}:{exchange}:{asset_class}`, or
 * the asset id. Ids are UUIDs derived from the symbol (version 5 layout), stable across runs and machines.
 */
import { createHash } from "node:crypto";

export const ASSET_CLASSES = ["us_equity", "crypto"] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

/** The exchanges the anchor names (J4 `Exchange`). */
export const EXCHANGES = ["AMEX", "ARCA", "BATS", "NYSE", "NASDAQ", "NYSEARCA", "OTC", "CRYPTO"] as const;
export type Exchange = (typeof EXCHANGES)[number];

/** Asset attributes (J4 `AssetAttribute`). */
export const ASSET_ATTRIBUTES = [
  "ptp_no_exception",
  "ptp_with_exception",
  "ipo",
  "has_options",
  "options_late_close",
  "fractional_eh_enabled",
  "overnight_tradable",
  "overnight_halted",
] as const;
export type AssetAttribute = (typeof ASSET_ATTRIBUTES)[number];

/** The anchor's asset object, field for field and in its order; the last three exist for crypto only. */
export interface AssetObject {
  id: string;
  class: AssetClass;
  exchange: Exchange;
  symbol: string;
  name: string;
  /** US equities only (null for crypto): market/cusips.ts. */
  cusip: string | null;
  status: "active" | "inactive";
  tradable: boolean;
  marginable: boolean;
  maintenance_margin_requirement: number;
  margin_requirement_long: string;
  margin_requirement_short: string;
  shortable: boolean;
  easy_to_borrow: boolean;
  /** US equities only (absent for crypto), as at the anchor. */
  borrow_status?: "easy_to_borrow" | "hard_to_borrow";
  fractionable: boolean;
  attributes: AssetAttribute[];
  min_order_size?: string;
  min_trade_increment?: string;
  price_increment?: string;
}

/** An asset with what the market simulates about it. */
export interface ListedAsset {
  asset: AssetObject;
  /** The price at the price process's anchor time, in USD. */
  referencePrice: number;
  /** Annualized volatility of log returns (0.25 = 25 %). */
  annualVolatility: number;
  /** Quoted spread in basis points of the price (at least one tick). */
  spreadBps: number;
  /** Average trade prints per minute on the simulated tape. */
  tradesPerMinute: number;
}

/** Our namespace for asset ids: any fixed UUID works; this one is ours. */
const ASSET_ID_NAMESPACE = "5d0f3c9e-8b7a-4e21-9c4d-2a6f1e8b3d70";

/** The asset id of a symbol: UUID version 5 (SHA-1 of namespace and symbol), as RFC 9562 §5.5 lays it out. */
export function assetIdOf(symbol: string): string {
  const namespace = Buffer.from(ASSET_ID_NAMESPACE.replaceAll("-", ""), "hex");
  const bytes = createHash("sha1").update(namespace).update(symbol, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** No listed asset has this symbol or id (the anchor's 404 "asset not found for …"). */
export class AssetNotFoundError extends Error {
  override name = "AssetNotFoundError" as const;
  constructor(readonly symbolOrId: string) {
    super(`asset not found for ${symbolOrId}`);
  }
}
export type AssetNotFoundErrorType = AssetNotFoundError & { name: "AssetNotFoundError" };

/** The `GET /v2/assets` query: each given filter must match; `attributes` matches an asset having any of them. */
export interface AssetFilter {
  status?: string;
  /** Default `us_equity`, as at the anchor. */
  asset_class?: string;
  exchange?: string;
  attributes?: readonly string[];
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The listed assets with their indexes; immutable once built. */
export class AssetUniverse {
  readonly #listings: readonly ListedAsset[];
  readonly #byKey = new Map<string, ListedAsset>();

  constructor(listings: readonly ListedAsset[]) {
    this.#listings = [...listings].sort((a, b) => compareAssets(a.asset, b.asset));
    for (const listing of this.#listings) {
      const { id, symbol } = listing.asset;
      for (const key of new Set([id, symbol, symbol.replace("/", "")])) {
        if (this.#byKey.has(key)) throw new Error(`duplicate asset key "${key}"`);
        this.#byKey.set(key, listing);
      }
    }
  }

  /** Every listing, in the anchor's order (class, exchange, symbol). */
  all(): readonly ListedAsset[] {
    return this.#listings;
  }

  /** The listing of a symbol or id in any of the anchor's forms, or `undefined`. */
  find(symbolOrId: string): ListedAsset | undefined {
    const text = symbolOrId.trim();
    if (UUID_PATTERN.test(text)) return this.#byKey.get(text.toLowerCase());
    const [symbol = "", exchange, assetClass, ...rest] = text.split(":");
    const listing = this.#byKey.get(symbol.toUpperCase());
    if (!listing || rest.length > 0) return undefined;
    if (exchange !== undefined && exchange.toUpperCase() !== listing.asset.exchange) return undefined;
    if (assetClass !== undefined && assetClass.toLowerCase() !== listing.asset.class) return undefined;
    return listing;
  }

  /**
   * The listing of a symbol or id, as `find`.
   * @throws {AssetNotFoundError} when nothing matches.
   */
  get(symbolOrId: string): ListedAsset {
    const listing = this.find(symbolOrId);
    if (!listing) throw new AssetNotFoundError(symbolOrId);
    return listing;
  }

  /** The asset objects `GET /v2/assets` answers for a query, in the anchor's order. */
  list(filter: AssetFilter = {}): AssetObject[] {
    const assetClass = filter.asset_class ?? "us_equity";
    const attributes = filter.attributes?.filter(Boolean) ?? [];
    return this.#listings
      .map((listing) => listing.asset)
      .filter(
        (asset) =>
          asset.class === assetClass &&
          (filter.status === undefined || asset.status === filter.status) &&
          (filter.exchange === undefined || asset.exchange === filter.exchange.toUpperCase()) &&
          (attributes.length === 0 || asset.attributes.some((a) => attributes.includes(a))),
      );
  }
}

function compareAssets(a: AssetObject, b: AssetObject): number {
  const key = (x: AssetObject) => [x.class, x.exchange, x.symbol] as const;
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) {
    if (ka[i]! < kb[i]!) return -1;
    if (ka[i]! > kb[i]!) return 1;
  }
  return 0;
}
