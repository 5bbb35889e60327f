import type { PublicClient } from "viem";
import { describe, expect, it } from "vitest";
import { type CallResult, multicallEachMayFail } from "./multicallReads.ts";

/** A client whose `multicall` answers `results` as viem does with `allowFailure` (one request, no chain). */
const answering = (results: CallResult[]) => ({ multicall: async () => results }) as unknown as PublicClient;
const MULTICALL = "0xcA11bde05977b3631167028862bE2a173976CA11";

describe("multicallEachMayFail", () => {
  it("returns each call's own outcome, reverts included", async () => {
    const results: CallResult[] = [
      { status: "success", result: 1n },
      { status: "failure", error: new Error("reverted") },
    ];
    expect(await multicallEachMayFail(answering(results), [{}, {}], MULTICALL)).toBe(results);
    const twoReverts: CallResult[] = [
      { status: "failure", error: new Error("reverted") },
      { status: "failure", error: new Error("reverted") },
    ];
    expect(await multicallEachMayFail(answering(twoReverts), [{}, {}], MULTICALL)).toBe(twoReverts);
  });

  it("throws the request's error when every call carries that one error (the request failed)", async () => {
    const busy = new Error("HTTP request failed. Status: 503");
    const results: CallResult[] = [
      { status: "failure", error: busy },
      { status: "failure", error: busy },
    ];
    await expect(multicallEachMayFail(answering(results), [{}, {}], MULTICALL)).rejects.toBe(busy);
  });

  it("makes no request for no calls", async () => {
    const never = { multicall: () => Promise.reject(new Error("called")) } as unknown as PublicClient;
    expect(await multicallEachMayFail(never, [], MULTICALL)).toEqual([]);
  });
});
