/**
 * The read side of `brokerage.trade_events` (the trade-update stream's source): the events after an id, in id
 * order, and the largest id. The exchange writer commits events in increasing id order (one writer at a
 * time), so "after the last id read" never skips a row committed later.
 */
import type { Queryable } from "@platform/kernel";

/** One trade-update event as stored; numbers are decimal strings (numeric), `order` the anchor's object. */
export interface TradeEventRow {
  /** bigserial, as a decimal string (int8). */
  id: string;
  account_id: string;
  event: string;
  at: Date;
  order_id: string;
  order: Record<string, unknown>;
  execution_id: string | null;
  price: string | null;
  qty: string | null;
  position_qty: string | null;
}

export function createTradeEventFeedRepository(db: Queryable) {
  return {
    /** Up to `limit` events with an id above `afterId`, every account's, in id order. */
    after: (afterId: bigint, limit: number): Promise<TradeEventRow[]> =>
      db.query<TradeEventRow>(
        `SELECT id, account_id, event, at, order_id, "order", execution_id, price, qty, position_qty
         FROM brokerage.trade_events WHERE id > $1 ORDER BY id LIMIT $2`,
        [afterId.toString(), limit],
      ),

    /** The largest event id, 0 when there is none (one index probe). */
    async latestId(): Promise<bigint> {
      const [row] = await db.query<{ id: string | null }>("SELECT max(id) AS id FROM brokerage.trade_events");
      return BigInt(row?.id ?? 0);
    },
  };
}

export type TradeEventFeedRepository = ReturnType<typeof createTradeEventFeedRepository>;
