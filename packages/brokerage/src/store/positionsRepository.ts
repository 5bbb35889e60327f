/**
 * SQL for `brokerage.positions`: an account's open positions (signed quantity, average entry price). The
 * exchange writer changes them with each fill (execution/ledger.ts); the routes and placements read them.
 */
import type { Queryable } from "@platform/kernel";

export interface PositionRow {
  account_id: string;
  symbol: string;
  asset_id: string;
  asset_class: string;
  exchange: string;
  /** Signed decimal string: negative for a short. */
  qty: string;
  avg_entry_price: string;
  updated_at: Date;
}

export function createPositionsRepository(db: Queryable) {
  return {
    list: (accountId: string, tx: Queryable = db): Promise<PositionRow[]> =>
      tx.query<PositionRow>("SELECT * FROM brokerage.positions WHERE account_id = $1 ORDER BY symbol", [accountId]),

    async get(accountId: string, symbol: string, tx: Queryable = db): Promise<PositionRow | undefined> {
      const [row] = await tx.query<PositionRow>(
        "SELECT * FROM brokerage.positions WHERE account_id = $1 AND symbol = $2",
        [accountId, symbol],
      );
      return row;
    },
  };
}

export type PositionsRepository = ReturnType<typeof createPositionsRepository>;
