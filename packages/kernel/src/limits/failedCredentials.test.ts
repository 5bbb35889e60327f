import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createFailedCredentials, createFailureWindow } from "./failedCredentials.ts";
import { createMemoryRateCounter, createRedisRateCounter } from "./rateCounter.ts";

const limit = { failures: 3, windowSec: 60 };

describe("createFailureWindow", () => {
  it("refuses at the limit, with the seconds until the sliding estimate drops below it", async () => {
    let now = 120_000; // the start of window 2
    const window = createFailureWindow({ counter: createMemoryRateCounter(), name: "t", limit, now: () => now });
    for (let i = 0; i < 2; i++) await window.recordFailure("a");
    expect(await window.retryAfterSec("a")).toBe(0);
    await window.recordFailure("a");
    // Three failures in this window: the next window still weighs them fully at its start; at 1/3 into it
    // the weight of 3 is 2 = failures - 1.
    expect(await window.retryAfterSec("a")).toBe(60 + 20);
    expect(await window.retryAfterSec("b")).toBe(0);
    now += 30_000;
    expect(await window.retryAfterSec("a")).toBe(30 + 20);
    now += 30_000 + 21_000;
    expect(await window.retryAfterSec("a")).toBe(0);
  });

  it("gives no second allowance across a window boundary", async () => {
    let now = 179_000; // one second before window 3 starts
    const window = createFailureWindow({ counter: createMemoryRateCounter(), name: "t", limit, now: () => now });
    for (let i = 0; i < 3; i++) await window.recordFailure("a");
    now += 2_000;
    expect(await window.retryAfterSec("a")).toBeGreaterThan(0);
  });
});

describe("createFailedCredentials", () => {
  it("counts per address (IPv6 by /64) and per service", async () => {
    const counter = createMemoryRateCounter();
    const wearables = createFailedCredentials({ counter, service: "wearables", limit });
    const crosschain = createFailedCredentials({ counter, service: "crosschain", limit });
    for (const address of ["2001:db8::1", "2001:db8::2", "2001:db8::3"]) await wearables.recordFailure(address);
    expect(await wearables.retryAfterSec("2001:db8:0:0:ffff::9")).toBeGreaterThan(0);
    expect(await wearables.retryAfterSec("2001:db8:0:1::1")).toBe(0);
    expect(await crosschain.retryAfterSec("2001:db8::1")).toBe(0);
  });

  it("assertAllowed sets Retry-After and throws a 429 HttpError", async () => {
    const failed = createFailedCredentials({ counter: createMemoryRateCounter(), service: "s", limit });
    const headers: Record<string, string> = {};
    const reply = { header: (name: string, value: string) => (headers[name] = value) };
    await failed.assertAllowed({ ip: "192.0.2.1" }, reply);
    for (let i = 0; i < 3; i++) await failed.recordFailure("192.0.2.1");
    await expect(failed.assertAllowed({ ip: "192.0.2.1" }, reply)).rejects.toMatchObject({
      statusCode: 429,
      code: "TOO_MANY_REQUESTS",
    });
    expect(Number(headers["Retry-After"])).toBeGreaterThan(0);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)("through Redis", () => {
  it("two instances share one count per address", async () => {
    const prefix = `test:${randomUUID()}:`;
    const counters = [0, 1].map(() => createRedisRateCounter(process.env.TEST_REDIS_URL as string, prefix));
    try {
      const [a, b] = counters.map((counter) => createFailedCredentials({ counter, service: "s", limit }));
      await a?.recordFailure("192.0.2.1");
      await b?.recordFailure("192.0.2.1");
      expect(await a?.retryAfterSec("192.0.2.1")).toBe(0);
      await a?.recordFailure("192.0.2.1");
      expect(await b?.retryAfterSec("192.0.2.1")).toBeGreaterThan(0);
      expect(await b?.retryAfterSec("192.0.2.2")).toBe(0);
    } finally {
      await Promise.all(counters.map((c) => c.close()));
    }
  });
});
