/**
 * The deposit status changes a push-stream subscriber gets, without a gap. One kernel outbox reader per
 * process follows crosschain.deposit_status_events (LISTEN/NOTIFY where the database has it, plus its safety
 * poll) and hands every new row to the subscribers whose filter it matches. A subscriber first gets its backlog
 * from the table: the current status of each matching deposit, or (resuming) every matching row after its last
 * event id. Rows arriving while the backlog is read are held and then sent if newer than the backlog, which is
 * enough because the writers commit outbox ids in increasing order (store/depositStatusEvents.ts).
 */
import { createOutboxReader, type Database, type Logger } from "@platform/kernel";
import { DEPOSIT_STATUS_CHANNEL } from "../store/depositStatusEvents.ts";
import {
  createDepositStatusFeed,
  type DepositStatusEventRow,
  type DepositStatusFilter,
} from "../store/depositStatusFeed.ts";

export type { DepositStatusEventRow, DepositStatusFilter };

const BACKLOG_BATCH = 1_000;

type Send = (row: DepositStatusEventRow) => void;

export interface DepositStatusStream {
  /**
   * Calls `send` with the backlog of `filter` (current statuses, or the rows after `resumeAfter`), then with each
   * matching change, in id order, until the returned function is called. Resolves once the backlog is sent.
   */
  subscribe(filter: DepositStatusFilter, resumeAfter: bigint | undefined, send: Send): Promise<() => void>;
  /** Reads at once what was committed (an in-process writer may call it after its commit). */
  wake(): void;
  /** Stops the reader; subscribers get nothing more. */
  close(): Promise<void>;
}

export interface CreateDepositStatusStreamParameters {
  db: Database;
  logger: Pick<Logger, "warn" | "error">;
  /** The reader's safety poll, and its only way to see new rows where LISTEN is not available (default 1 s). */
  pollIntervalMs?: number;
}

/** True when `row` is one of the deposits `filter` names. */
export function matchesFilter(filter: DepositStatusFilter, row: DepositStatusEventRow): boolean {
  if (filter.depositors?.length && !filter.depositors.some((d) => d.equals(row.depositor))) return false;
  if (
    filter.deposit &&
    (row.origin_chain_id !== String(filter.deposit.originChainId) || row.deposit_id !== filter.deposit.depositId)
  ) {
    return false;
  }
  return !filter.depositTx || filter.depositTx.equals(row.deposit_tx);
}

export function createDepositStatusStream({
  db,
  logger,
  pollIntervalMs = 1_000,
}: CreateDepositStatusStreamParameters): DepositStatusStream {
  const feed = createDepositStatusFeed(db);
  const listeners = new Set<(row: DepositStatusEventRow) => void>();
  const reader = createOutboxReader<DepositStatusEventRow>({
    db,
    logger,
    channel: DEPOSIT_STATUS_CHANNEL,
    label: "deposit status events",
    latestId: () => feed.latestId(),
    after: (afterId, limit) => feed.after(afterId, limit),
    idOf: (row) => BigInt(row.id),
    idle: () => listeners.size === 0,
    deliver(rows) {
      for (const row of rows) {
        for (const listener of listeners) {
          try {
            listener(row);
          } catch (error) {
            logger.error({ err: error, eventId: row.id }, "deposit status listener failed");
          }
        }
      }
    },
    pollIntervalMs,
  });

  async function backlog(filter: DepositStatusFilter, resumeAfter: bigint | undefined, emit: Send) {
    if (resumeAfter === undefined) {
      for (const row of await feed.current(filter)) emit(row);
      return;
    }
    let after = resumeAfter;
    for (;;) {
      const rows = await feed.matchingAfter(filter, after, BACKLOG_BATCH);
      for (const row of rows) emit(row);
      const last = rows[rows.length - 1];
      if (!last || rows.length < BACKLOG_BATCH) return;
      after = BigInt(last.id);
    }
  }
  return {
    async subscribe(filter, resumeAfter, deliver) {
      let lastSent = resumeAfter ?? 0n;
      let held: DepositStatusEventRow[] | undefined = [];
      let active = true;
      const emit = (row: DepositStatusEventRow) => {
        const id = BigInt(row.id);
        if (!active || id <= lastSent) return;
        lastSent = id;
        deliver(row);
      };
      const listener = (row: DepositStatusEventRow) => {
        if (!matchesFilter(filter, row)) return;
        if (held) held.push(row);
        else emit(row);
      };
      // Subscribed before the backlog is read, and the reader's cursor set (its first read sets it to the table's
      // last id): whatever commits after the backlog's snapshot is delivered here.
      listeners.add(listener);
      const unsubscribe = () => {
        active = false;
        listeners.delete(listener);
      };
      try {
        await reader.cursor();
        await backlog(filter, resumeAfter, emit);
      } catch (error) {
        unsubscribe();
        throw error;
      }
      for (const row of held) emit(row);
      held = undefined;
      return unsubscribe;
    },
    wake: reader.wake,
    async close() {
      await reader.close();
      listeners.clear();
    },
  };
}
