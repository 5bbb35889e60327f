import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryRateCounter, createRedisRateCounter, type RateCounter } from "./rateCounter.ts";

/** Counts in a one-second window, then expects the window forgotten once `pastWindow` has let it expire. */
async function exercise(counter: RateCounter, pastWindow: () => Promise<void>) {
  const w = `test:${randomUUID()}`;
  expect(await counter.count(w)).toBe(0);
  expect(await counter.increment(w, 1)).toBe(1);
  expect(await counter.increment(w, 1)).toBe(2);
  expect(await counter.count(w)).toBe(2);
  expect(await counter.increment(`${w}:other`, 1)).toBe(1);
  await pastWindow();
  expect(await counter.count(w)).toBe(0);
  expect(await counter.increment(w, 1)).toBe(1);
  await counter.close();
}

afterEach(() => {
  vi.useRealTimers();
});

describe("rate counters", () => {
  it("count per window and forget expired windows (in process)", async () => {
    vi.useFakeTimers();
    const counter = createMemoryRateCounter();
    const w = `test:${randomUUID()}`;
    await counter.increment(w, 1);
    // The last millisecond of the window still counts.
    vi.advanceTimersByTime(999);
    expect(await counter.increment(w, 1)).toBe(2);
    await exercise(counter, async () => {
      vi.advanceTimersByTime(1_000);
    });
  });

  // Redis expires the key on its own clock: this one waits for real.
  it.runIf(process.env.TEST_REDIS_URL)("count per window and forget expired windows (Redis)", () =>
    exercise(createRedisRateCounter(process.env.TEST_REDIS_URL as string, `test:${randomUUID()}:`), async () => {
      await new Promise((r) => setTimeout(r, 1_100));
    }),
  );
});
