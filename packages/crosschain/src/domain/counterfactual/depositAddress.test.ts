import { concat, keccak256, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import {
  depositAddressTree,
  encodeRouteParams,
  executionNonce,
  hashPair,
  leafOf,
  type SpokePoolRouteParams,
  withinFeeCap,
} from "./depositAddress.ts";

describe("counterfactual deposit addresses", () => {
  it("hashes pairs commutatively, as OpenZeppelin's MerkleProof expects", () => {
    const a = leafOf("0x0000000000000000000000000000000000000001", "0x01");
    const b = leafOf("0x0000000000000000000000000000000000000002", "0x02");
    expect(hashPair(a, b)).toBe(hashPair(b, a));
    const [low, high] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    expect(hashPair(a, b)).toBe(keccak256(concat([low, high])));
  });

  it("a root changes with any route parameter (an address per transfer)", () => {
    const route: SpokePoolRouteParams = {
      inputSymbol: "USDC",
      destinationChainId: 10,
      outputToken: "0x00000000000000000000000000000000000000b2",
      recipient: "0x00000000000000000000000000000000000000c3",
      message: "0x",
      stableExchangeRate: 10n ** 18n,
      maxFeeBps: 100,
    };
    const tree = (r: SpokePoolRouteParams) =>
      depositAddressTree({
        depositImplementation: "0x00000000000000000000000000000000000000d4",
        routeParams: encodeRouteParams(r),
        withdrawImplementation: "0x00000000000000000000000000000000000000e5",
        withdrawParams: "0x",
      }).root;
    expect(tree(route)).not.toBe(tree({ ...route, recipient: "0x00000000000000000000000000000000000000c4" }));
    expect(tree(route)).not.toBe(tree({ ...route, maxFeeBps: 101 }));
    // The tuple is dynamic (it holds bytes): its offset word first, then the getter's selector.
    expect(encodeRouteParams(route).slice(66, 74)).toBe(toFunctionSelector("usdc()").slice(2));
  });

  it("gives each execution of an address its own nonce", () => {
    const clone = "0x00000000000000000000000000000000000000f6";
    expect(executionNonce(clone, 0)).not.toBe(executionNonce(clone, 1));
    expect(executionNonce(clone, 0)).toBe(executionNonce(clone, 0));
  });

  it("applies the contract's fee cap: relayer fee + execution fee ≤ fixed cap + bps of the input", () => {
    const base = { inputAmount: 100_000_000n, stableExchangeRate: 10n ** 18n, maxFeeFixed: 0n, maxFeeBps: 100 };
    expect(withinFeeCap({ ...base, outputAmount: 99_000_000n, executionFee: 0n })).toBe(true); // 1 % exactly
    expect(withinFeeCap({ ...base, outputAmount: 98_999_999n, executionFee: 0n })).toBe(false);
    expect(withinFeeCap({ ...base, outputAmount: 98_000_000n, executionFee: 0n, maxFeeFixed: 1_000_000n })).toBe(true);
    expect(withinFeeCap({ ...base, outputAmount: 98_999_999n, executionFee: 1n, maxFeeFixed: 0n })).toBe(false);
  });
});
