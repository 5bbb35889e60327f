/**
 * The read side of `brokerage.market_feed` (the data streams' outbox): the messages after a sequence number, in
 * order, and the largest sequence number. Writers append in their transactions and NOTIFY
 * `brokerage_market_feed` with the largest seq they wrote.
 */
import type { Queryable } from "@platform/kernel";

/** One feed message as stored: `message` is the stream message in JSON (`t` an RFC 3339 string). */
export interface MarketFeedRow {
  /** bigserial, as a decimal string (int8). */
  seq: string;
  symbol: string;
  channel: string;
  message: Record<string, unknown>;
}

export function createMarketFeedRepository(db: Queryable) {
  return {
    /** Up to `limit` messages with a seq above `afterSeq`, in seq order. */
    after: (afterSeq: bigint, limit: number): Promise<MarketFeedRow[]> =>
      db.query<MarketFeedRow>(
        "SELECT seq, symbol, channel, message FROM brokerage.market_feed WHERE seq > $1 ORDER BY seq LIMIT $2",
        [afterSeq.toString(), limit],
      ),

    /** The largest seq, 0 when the feed is empty (one index probe). */
    async latestSeq(): Promise<bigint> {
      const [row] = await db.query<{ seq: string | null }>("SELECT max(seq) AS seq FROM brokerage.market_feed");
      return BigInt(row?.seq ?? 0);
    },
  };
}

export type MarketFeedRepository = ReturnType<typeof createMarketFeedRepository>;
