/**
 * Writes trade-update events as the exchange writer does: rows of `brokerage.trade_events` and, in the same
 * transaction, `pg_notify` of the stream's channel with the largest id written (or no notification, to play
 * a lost one).
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@platform/kernel";
import { TRADE_EVENTS_CHANNEL } from "../stream/tradeUpdatesHub.ts";

export interface TradeEventInput {
  accountId: string;
  event?: string;
  at?: Date;
  /** Merged into a small order object (e.g. a marker the test finds the event by). */
  order?: Record<string, unknown>;
  executionId?: string;
  price?: string;
  qty?: string;
  positionQty?: string;
}

/** Inserts `events` in one transaction, in order; returns their ids (decimal strings). */
export async function writeTradeEvents(
  db: Database,
  events: readonly TradeEventInput[],
  { notify = true }: { notify?: boolean } = {},
): Promise<string[]> {
  return db.transaction(async (tx) => {
    const ids: string[] = [];
    for (const e of events) {
      const orderId = randomUUID();
      const [row] = await tx.query<{ id: string }>(
        `INSERT INTO brokerage.trade_events
           (account_id, event, at, order_id, "order", execution_id, price, qty, position_qty)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [
          e.accountId,
          e.event ?? "new",
          e.at ?? new Date(),
          orderId,
          JSON.stringify({ id: orderId, symbol: "AAPL", status: e.event ?? "new", ...e.order }),
          e.executionId ?? null,
          e.price ?? null,
          e.qty ?? null,
          e.positionQty ?? null,
        ],
      );
      ids.push((row as { id: string }).id);
    }
    const last = ids.at(-1);
    if (notify && last) await tx.query("SELECT pg_notify($1, $2)", [TRADE_EVENTS_CHANNEL, last]);
    return ids;
  });
}
