import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createMemoryRateCounter, createRedisRateCounter, type RateCounter } from "./rateCounter.ts";

async function exercise(counter: RateCounter) {
  const w = `test:${randomUUID()}`;
  expect(await counter.increment(w, 1)).toBe(1);
  expect(await counter.increment(w, 1)).toBe(2);
  expect(await counter.increment(`${w}:other`, 1)).toBe(1);
  await new Promise((r) => setTimeout(r, 1_100));
  expect(await counter.increment(w, 1)).toBe(1);
  await counter.close();
}

describe("rate counters", () => {
  it("count per window and forget expired windows (in process)", () => exercise(createMemoryRateCounter()));

  it.runIf(process.env.TEST_REDIS_URL)("count per window and forget expired windows (Redis)", () =>
    exercise(createRedisRateCounter(process.env.TEST_REDIS_URL as string, `test:${randomUUID()}:`)),
  );
});
