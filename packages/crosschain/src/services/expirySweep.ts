/**
 * The periodic expiry sweep: a deposit's deadline passes without any event, so nothing else would record that
 * it expired. Each pass records `expired` for the deposits whose last status was pending or slowFillRequested
 * and whose deadline is now behind (store/depositStatusEvents.ts `sweepExpiredStatuses`). Passes after the
 * first read only the deadlines since the previous one, less a margin for a range that committed late.
 */
import type { Database, Logger } from "@platform/kernel";
import { sweepExpiredStatuses } from "../store/depositStatusEvents.ts";

export interface StartExpirySweepParameters {
  db: Database;
  logger: Pick<Logger, "warn" | "debug">;
  /** Between passes (default 10 s). */
  intervalMs?: number;
  /** How far before the previous pass a pass looks again, in seconds (default 600). */
  marginSec?: number;
  /** Unix seconds now (tests). */
  now?: () => number;
}

export interface ExpirySweep {
  /** Runs one pass now (after the one in progress); resolves with the events it recorded. */
  runOnce(): Promise<number>;
  /** Stops the loop; waits for a pass in progress. */
  stop(): Promise<void>;
}

export function startExpirySweep({
  db,
  logger,
  intervalMs = 10_000,
  marginSec = 600,
  now = () => Math.floor(Date.now() / 1000),
}: StartExpirySweepParameters): ExpirySweep {
  let previous: number | undefined;
  let running: Promise<number> = Promise.resolve(0);

  const pass = async (): Promise<number> => {
    const at = now();
    try {
      const written = await sweepExpiredStatuses(db, at, previous === undefined ? undefined : previous - marginSec);
      previous = at;
      if (written) logger.debug({ written }, "deposit expiry sweep recorded expired deposits");
      return written;
    } catch (error) {
      logger.warn({ err: error }, "deposit expiry sweep failed; retrying at the next pass");
      return 0;
    }
  };
  const runOnce = () => {
    running = running.then(pass);
    return running;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  void runOnce();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
