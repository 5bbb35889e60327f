import { afterEach, describe, expect, it, vi } from "vitest";
import { bumpFees, maxFees } from "./fees.ts";
import { createNonceManager } from "./nonceManager.ts";

describe("nonce manager", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts at the chain's pending count and hands out consecutive nonces", () => {
    const n = createNonceManager();
    expect(n.next).toBeNull();
    expect(() => n.reserve()).toThrow(/sync/);
    n.sync({ pending: 7, latest: 7 }, []);
    expect([n.reserve(), n.reserve()]).toEqual([7, 8]);
    expect(n.next).toBe(9);
  });

  it("stays above the nonces of intents the chain does not count yet ('sending', not broadcast)", () => {
    const n = createNonceManager();
    expect(n.sync({ pending: 3, latest: 3 }, [3, 5])).toBe(6);
  });

  it("reuses a nonce given back or abandoned, so no gap is left", () => {
    const n = createNonceManager();
    n.sync({ pending: 3, latest: 3 }, []);
    const a = n.reserve();
    n.release(a);
    expect(n.reserve()).toBe(3);
    // The intent at 3 was abandoned before its broadcast: the next sync hands 3 out again.
    expect(n.sync({ pending: 3, latest: 3 }, [])).toBe(3);
  });

  it("holds approvals and cancels until they are mined", () => {
    const n = createNonceManager();
    n.sync({ pending: 0, latest: 0 }, []);
    n.holdOther(n.reserve());
    expect(n.sync({ pending: 0, latest: 0 }, [])).toBe(1); // the node has not seen it (yet)
    expect(n.sync({ pending: 1, latest: 1 }, [])).toBe(1);
    expect(n.sync({ pending: 0, latest: 1 }, [])).toBe(0); // mined and pruned: the chain count rules
  });

  it("lets go of an approval/cancel the node dropped, after a while", () => {
    vi.useFakeTimers();
    const n = createNonceManager(1000);
    n.sync({ pending: 4, latest: 4 }, []);
    n.holdOther(n.reserve());
    vi.advanceTimersByTime(999);
    expect(n.sync({ pending: 4, latest: 4 }, [])).toBe(5);
    vi.advanceTimersByTime(2);
    expect(n.sync({ pending: 4, latest: 4 }, [])).toBe(4);
  });

  it("jumps ahead when the key was used elsewhere", () => {
    const n = createNonceManager();
    n.sync({ pending: 2, latest: 2 }, []);
    expect(n.sync({ pending: 10, latest: 10 }, [])).toBe(10);
  });
});

describe("replacement fees", () => {
  it("raises both fields by at least 12.5% (rounded up)", () => {
    const prev = { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n };
    expect(bumpFees(prev, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })).toEqual({
      maxFeePerGas: 1125n,
      maxPriorityFeePerGas: 113n,
    });
    expect(
      bumpFees({ maxFeePerGas: 1n, maxPriorityFeePerGas: 0n }, { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }),
    ).toEqual({
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
  });

  it("follows the market when it moved more, and keeps maxFee >= priority", () => {
    const prev = { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n };
    expect(bumpFees(prev, { maxFeePerGas: 5000n, maxPriorityFeePerGas: 2000n })).toEqual({
      maxFeePerGas: 5000n,
      maxPriorityFeePerGas: 2000n,
    });
    expect(bumpFees(prev, { maxFeePerGas: 0n, maxPriorityFeePerGas: 2000n }).maxFeePerGas).toBe(2000n);
    expect(maxFees(prev, { maxFeePerGas: 1n, maxPriorityFeePerGas: 200n })).toEqual({
      maxFeePerGas: 1000n,
      maxPriorityFeePerGas: 200n,
    });
  });
});
