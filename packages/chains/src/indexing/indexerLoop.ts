/**
 * The loop every background indexer runs: `step()` until the signal aborts; a step that reports it is
 * caught up waits `pollMs` (or until `wake()`); a failing step is retried with exponential backoff
 * (up to 30 s), logging each new error once.
 */
import type { Logger } from "@platform/kernel";

export interface IndexerLoopParameters {
  signal: AbortSignal;
  pollMs: number;
  /** Returns true when caught up (the loop then waits for the next poll). */
  step(): Promise<boolean>;
  logger: Logger;
  onError?(error: Error): void;
  onRecovered?(): void;
}

export interface IndexerLoop {
  /** Resolves when the signal aborted and the current step finished. */
  done: Promise<void>;
  /** Ends the current wait early (e.g. a new block was announced). */
  wake(): void;
}

export function startIndexerLoop(p: IndexerLoopParameters): IndexerLoop {
  let wakeUp: (() => void) | undefined;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        p.signal.removeEventListener("abort", done);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
      p.signal.addEventListener("abort", done, { once: true });
    });

  const run = async () => {
    let backoff = p.pollMs;
    let lastError: string | undefined;
    while (!p.signal.aborted) {
      try {
        const caughtUp = await p.step();
        if (lastError !== undefined) {
          p.logger.info("indexer recovered");
          p.onRecovered?.();
        }
        lastError = undefined;
        backoff = p.pollMs;
        if (caughtUp) await wait(p.pollMs);
      } catch (error) {
        const message = (error as Error).message;
        if (message !== lastError) p.logger.warn({ err: error }, "indexer step failed; retrying");
        lastError = message;
        p.onError?.(error as Error);
        await wait(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  };
  return { done: run(), wake: () => wakeUp?.() };
}
