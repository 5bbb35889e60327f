/**
 * What the exchange writer asks of a place of execution (the live books or the paper simulation), and what
 * it answers: events of customer orders only, amounts in 1e-9 units. The writer persists them (ledger.ts).
 */
import type { OrderRow } from "../domain/orderObject.ts";

export type VenueEvent =
  | {
      type: "fill";
      orderId: string;
      qty: bigint;
      price: bigint;
      executionId: string;
      leaves: bigint;
      /**
       * Set by the live books, whose executions are trades of the market (its market data): the book's
       * sequence of the execution and the side that took liquidity. Paper fills leave it out.
       */
      print?: { sequence: number; takerSide: "buy" | "sell" };
    }
  | {
      type: "canceled";
      orderId: string;
      reason: "requested" | "ioc" | "fok" | "no_liquidity" | "self_trade" | "expired";
    }
  | { type: "rejected"; orderId: string; reason: string }
  | { type: "replaced"; orderId: string; newOrderId: string };

/** An order the writer hands to a venue: its row and what it still has to execute (1e-9 units). */
export interface WorkingOrder {
  row: OrderRow;
  /** Still to execute; for a notional order, the quantity the venue computes on execution. */
  leaves: bigint;
  /** Remaining dollars of a notional order (1e-9 USD), else undefined. */
  notionalLeft?: bigint | undefined;
  /** How it executes now (a triggered stop executes as `market`, a triggered stop-limit as `limit`). */
  executeAs: "market" | "limit";
  limitPrice?: bigint | undefined;
  /** ioc/fok keep their meaning; every other time in force rests (expiry is the writer's job). */
  timeInForce: "gtc" | "ioc" | "fok";
}

export interface Venue {
  /** Executes `order` against the market now; what does not execute rests (gtc) or is canceled (ioc/fok). */
  execute(order: WorkingOrder, at: number): VenueEvent[];
  /** Takes a resting order out (cancel, expiry). Unknown ids answer nothing. */
  remove(orderId: string, at: number, reason: "requested" | "expired"): VenueEvent[];
  /** The market moved to `at`: resting orders the market now reaches execute. */
  tick(at: number): VenueEvent[];
  /** Priority of a resting order in its queue (live books), for rebuilding after a restart. */
  priorityOf(orderId: string): number | undefined;
  /** Book sequences to persist with the events of `symbols` (live books), else empty. */
  bookStates(symbols: Iterable<string>): { symbol: string; sequence: number; lastTradePrice?: bigint | undefined }[];
}
