/**
 * The anchor's test feed (`wss://stream.data.alpaca.markets/v2/test`) carries one made-up symbol, `FAKEPACA`,
 * at any hour, so that a client can be tried without a data subscription. Ours is a listing of the price
 * process like any other, recorded with the market, but not in the asset universe: it cannot be traded and
 * the REST endpoints do not know it.
 */
import { equity } from "./assetListings.ts";
import { AssetUniverse, type ListedAsset } from "./assets.ts";

export const TEST_FEED_SYMBOL = "FAKEPACA";

export const FAKEPACA_LISTING: ListedAsset = equity(
  TEST_FEED_SYMBOL,
  "NASDAQ",
  "Fake Paca Inc. (test feed)",
  100,
  0.3,
  {
    tradable: false,
    tradesPerMinute: 60,
  },
);

/** The test feed's own universe (its prices come from a price process over it). */
export const createTestFeedUniverse = (): AssetUniverse => new AssetUniverse([FAKEPACA_LISTING]);
