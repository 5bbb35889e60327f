/**
 * Executions of the live exchange are trades of the market: the exchange writer's ledger records them, in its
 * own transaction, as the recorder records the tape's prints (same tables, same bars, same outbox). A trade in
 * a minute whose bar the recorder already sent changes that bar: the streams get it as an `updatedBars`
 * message, as the anchor sends late trades.
 */
import type { Queryable } from "@platform/kernel";
import {
  barsOfTrades,
  bucketStart,
  type MarketTrade,
  streamBarMessage,
  streamTradeMessage,
} from "../domain/marketRecords.ts";
import { createMarketDataRepository, type FeedMessage } from "../store/marketDataRepository.ts";

const repository = createMarketDataRepository();

/** Records `trades` of the live books (`crypto`: the symbols whose messages take the crypto shape). */
export async function recordExchangeTrades(
  tx: Queryable,
  trades: readonly MarketTrade[],
  crypto: (symbol: string) => boolean,
): Promise<void> {
  if (trades.length === 0) return;
  // FOR SHARE: waits for a recorder pass under way, so a minute is never closed under an uncommitted trade,
  // and outbox rows are numbered in commit order (see store/marketDataRepository.ts).
  const checkpoint = await repository.lockFeed(tx, "share");
  const recorded = await repository.insertTrades(tx, trades);
  await repository.mergeBars(tx, barsOfTrades(recorded));
  const feed: FeedMessage[] = recorded.map((t) => ({
    symbol: t.symbol,
    channel: "trades",
    message: streamTradeMessage(t, crypto(t.symbol)),
  }));
  const closedMinutes = new Map<number, Set<string>>();
  for (const t of recorded) {
    const minute = bucketStart("1Min", t.at);
    if (checkpoint && minute < checkpoint.closedTo) {
      closedMinutes.set(minute, (closedMinutes.get(minute) ?? new Set()).add(t.symbol));
    }
  }
  for (const [minute, symbols] of closedMinutes) {
    for (const bar of await repository.barsAt(tx, "1Min", minute, [...symbols])) {
      feed.push({ symbol: bar.symbol, channel: "updatedBars", message: streamBarMessage(bar, "u") });
    }
  }
  await repository.appendFeed(tx, feed);
}
