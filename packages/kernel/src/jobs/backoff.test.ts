import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./backoff.ts";

describe("retryDelayMs", () => {
  const options = { baseMs: 1_000, maxMs: 60_000 };

  it("doubles with each attempt, half of it jittered", () => {
    expect(retryDelayMs(1, options, () => 0)).toBe(500);
    expect(retryDelayMs(1, options, () => 0.999_999)).toBe(1_000);
    expect(retryDelayMs(2, options, () => 0)).toBe(1_000);
    expect(retryDelayMs(4, options, () => 0.5)).toBe(6_000);
  });

  it("is capped at maxMs", () => {
    expect(retryDelayMs(7, options, () => 0.999_999)).toBe(60_000);
    expect(retryDelayMs(1_000, options, () => 0)).toBe(30_000);
  });

  it("stays within [delay/2, delay] for any draw", () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const delay = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
      for (const r of [0, 0.1, 0.5, 0.9, 0.999]) {
        const d = retryDelayMs(attempt, options, () => r);
        expect(d).toBeGreaterThanOrEqual(delay / 2);
        expect(d).toBeLessThanOrEqual(delay);
      }
    }
  });

  it("defaults to 1 s doubling up to 10 minutes", () => {
    expect(retryDelayMs(1, {}, () => 0)).toBe(500);
    expect(retryDelayMs(30, {}, () => 0)).toBe(300_000);
  });
});
