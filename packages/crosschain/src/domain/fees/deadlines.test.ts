import { describe, expect, it } from "vitest";
import {
  checkDepositTimes,
  computeFillDeadline,
  computeQuoteBlock,
  DEFAULT_FILL_DEADLINE_BUFFER_SEC,
  fillDeadlineBufferSec,
  validateQuoteTimestamp,
} from "./deadlines.ts";

describe("fill deadline", () => {
  it("is quoteTimestamp + buffer, default 7200 s", () => {
    expect(DEFAULT_FILL_DEADLINE_BUFFER_SEC).toBe(7200);
    expect(computeFillDeadline(1_754_342_087)).toBe(1_754_349_287);
    expect(computeFillDeadline(1_000, 60)).toBe(1_060);
  });

  it("uses a per-destination buffer when configured", () => {
    expect(fillDeadlineBufferSec(10, { "10": 3600 })).toBe(3600);
    expect(fillDeadlineBufferSec(8453, { "10": 3600 })).toBe(7200);
    expect(fillDeadlineBufferSec(8453, undefined, 11_700)).toBe(11_700);
  });
});

describe("computeQuoteBlock", () => {
  it("rounds (latest - buffer) down to the precision", () => {
    // (23070370 - 25) / 25 = 922813.8 → 922813 * 25 = 23070325
    expect(computeQuoteBlock(23_070_370)).toBe(23_070_325);
    // buffer 25, precision 100: (1000 - 25) / 100 = 9.75 → 900
    expect(computeQuoteBlock(1_000, 25, 100)).toBe(900);
    // never negative on a fresh devnet
    expect(computeQuoteBlock(3)).toBe(0);
    expect(computeQuoteBlock(7, 0)).toBe(7);
  });
});

describe("validateQuoteTimestamp", () => {
  const now = 1_700_000_000;

  it("accepts a timestamp within 10 minutes before the block time", () => {
    expect(validateQuoteTimestamp(now, now)).toEqual({ ok: true, timestamp: now });
    expect(validateQuoteTimestamp(String(now - 600), now)).toEqual({ ok: true, timestamp: now - 600 });
  });

  it("refuses a future timestamp", () => {
    expect(validateQuoteTimestamp(now + 1, now)).toEqual({
      ok: false,
      error: {
        code: "INVALID_PARAM",
        reason: "TIMESTAMP_IN_FUTURE",
        param: "timestamp",
        message: "Provided timestamp can not be in the future",
      },
    });
  });

  it("refuses a timestamp older than the window", () => {
    const check = validateQuoteTimestamp(now - 601, now);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.error.reason).toBe("TIMESTAMP_TOO_OLD");
    expect(validateQuoteTimestamp(now - 3000, now, 3600).ok).toBe(true);
  });

  it("refuses non-integers", () => {
    for (const bad of ["abc", "1.5", "-5", "0", "", 1.5, 0, Number.NaN]) {
      const check = validateQuoteTimestamp(bad, now);
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.error.reason).toBe("INVALID_TIMESTAMP");
    }
  });
});

describe("checkDepositTimes (SpokePool rules)", () => {
  const now = 10_000;
  it("passes a fresh quote with a 2 h deadline", () => {
    expect(checkDepositTimes({ quoteTimestamp: now - 100, fillDeadline: now + 7200, now })).toBeNull();
  });

  it("rejects quote timestamps outside [now - 3600, now]", () => {
    expect(checkDepositTimes({ quoteTimestamp: now + 1, fillDeadline: now, now })).toBe("InvalidQuoteTimestamp");
    expect(checkDepositTimes({ quoteTimestamp: now - 3601, fillDeadline: now, now })).toBe("InvalidQuoteTimestamp");
    expect(checkDepositTimes({ quoteTimestamp: now - 3600, fillDeadline: now, now })).toBeNull();
  });

  it("rejects fill deadlines beyond now + 21600", () => {
    expect(checkDepositTimes({ quoteTimestamp: now, fillDeadline: now + 21_601, now })).toBe("InvalidFillDeadline");
    expect(checkDepositTimes({ quoteTimestamp: now, fillDeadline: now + 21_600, now })).toBeNull();
    expect(checkDepositTimes({ quoteTimestamp: now, fillDeadline: now + 7200, now, fillDeadlineBufferSec: 3600 })).toBe(
      "InvalidFillDeadline",
    );
  });
});
