/**
 * Orders of an account. There is no order book yet (issue 15 adds order placement and its table), so an
 * account has no orders and every list is empty: that is the true answer, not a placeholder for one.
 */

/** The filters of `GET /v2/orders` (Alpaca's query parameters), already validated. */
export interface OrderListQuery {
  status: "open" | "closed" | "all";
  limit: number;
  after?: Date | undefined;
  until?: Date | undefined;
  direction: "asc" | "desc";
  nested: boolean;
  side?: "buy" | "sell" | undefined;
  symbols?: string[] | undefined;
}

export function createOrdersService() {
  return {
    /** The account's orders matching `query`: none until orders can be placed (issue 15). */
    list: async (_accountId: string, _query: OrderListQuery): Promise<never[]> => [],
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
