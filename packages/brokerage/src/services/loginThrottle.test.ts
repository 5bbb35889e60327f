import { createMemoryRateCounter, type RateCounter } from "@platform/kernel";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { addressKey, createLoginThrottle } from "./loginThrottle.ts";

let counter: RateCounter;
beforeEach(() => {
  vi.useFakeTimers();
  // The start of a 15-minute window, so that the test knows where window boundaries fall.
  vi.setSystemTime(new Date("2026-01-05T10:00:00Z"));
  counter = createMemoryRateCounter();
});
afterEach(async () => {
  await counter.close();
  vi.useRealTimers();
});

const fail = async (
  throttle: ReturnType<typeof createLoginThrottle>,
  attempt: { email: string; address: string },
  times: number,
) => {
  for (let i = 0; i < times; i++) await throttle.recordFailure(attempt);
};

describe("login throttle", () => {
  it("refuses an account after 5 failures in 15 minutes, whatever the case of its email and the address", async () => {
    const throttle = createLoginThrottle({ counter });
    await fail(throttle, { email: "Ada@Example.com", address: "10.0.0.1" }, 4);
    expect(await throttle.isThrottled({ email: "ada@example.com", address: "10.0.0.9" })).toBe(false);
    await throttle.recordFailure({ email: " ada@example.com ", address: "10.0.0.2" });
    expect(await throttle.isThrottled({ email: "ada@example.com", address: "10.0.0.9" })).toBe(true);
    // Another account from another address is not affected.
    expect(await throttle.isThrottled({ email: "bob@example.com", address: "10.0.0.9" })).toBe(false);
  });

  it("refuses an address after 20 failures over any accounts", async () => {
    const throttle = createLoginThrottle({ counter });
    for (let i = 0; i < 19; i++) await throttle.recordFailure({ email: `user${i}@example.com`, address: "10.0.0.1" });
    expect(await throttle.isThrottled({ email: "new@example.com", address: "10.0.0.1" })).toBe(false);
    await throttle.recordFailure({ email: "user19@example.com", address: "10.0.0.1" });
    expect(await throttle.isThrottled({ email: "new@example.com", address: "10.0.0.1" })).toBe(true);
    expect(await throttle.isThrottled({ email: "new@example.com", address: "10.0.0.2" })).toBe(false);
  });

  it("slides: failures at the end of a window still count after the boundary, and are forgotten a window later", async () => {
    const throttle = createLoginThrottle({ counter });
    const attempt = { email: "ada@example.com", address: "10.0.0.1" };
    vi.setSystemTime(new Date("2026-01-05T10:14:50Z"));
    await fail(throttle, attempt, 5);
    vi.setSystemTime(new Date("2026-01-05T10:15:10Z")); // next fixed window: no fresh allowance
    expect(await throttle.isThrottled(attempt)).toBe(true);
    vi.setSystemTime(new Date("2026-01-05T10:26:00Z")); // 73 % through: 5 × 0.27 rounds up to 2 left
    expect(await throttle.isThrottled(attempt)).toBe(false);
    await fail(throttle, attempt, 3);
    expect(await throttle.isThrottled(attempt)).toBe(true);
    vi.setSystemTime(new Date("2026-01-05T10:45:00Z")); // two windows on: all forgotten
    expect(await throttle.isThrottled(attempt)).toBe(false);
  });

  it("takes its limits as parameters", async () => {
    const throttle = createLoginThrottle({ counter, perEmail: { failures: 1, windowSec: 60 } });
    await throttle.recordFailure({ email: "a@example.com", address: "10.0.0.1" });
    expect(await throttle.isThrottled({ email: "a@example.com", address: "10.0.0.2" })).toBe(true);
  });
});

describe("addressKey", () => {
  it("counts IPv4 as it is, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64", () => {
    expect(addressKey("192.0.2.7")).toBe("ip:192.0.2.7");
    expect(addressKey("::ffff:192.0.2.7")).toBe("ip:192.0.2.7");
    expect(addressKey("2001:db8:aa:bb:1:2:3:4")).toBe("ip:2001:db8:aa:bb::/64");
    expect(addressKey("2001:0db8:00aa:00bb::9")).toBe("ip:2001:db8:aa:bb::/64");
    expect(addressKey("2001:db8::1")).toBe("ip:2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("ip:0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("ip:fe80:0:0:0::/64");
  });
});
