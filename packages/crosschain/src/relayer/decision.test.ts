import { type Hex, zeroHash } from "viem";
import { describe, expect, it } from "vitest";
import { convertDecimals } from "../domain/fees/fixedPoint.ts";
import { addressToBytes32 } from "../domain/relayHash.ts";
import { offlineSpokeChain } from "../testing/offlineSpokeChain.ts";
import {
  checkEligibility,
  checkFunds,
  checkProfitability,
  type EligibilityInput,
  isExclusiveToOther,
  profitability,
} from "./decision.ts";
import type { PendingDeposit } from "./types.ts";

const ME = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Hex;
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as Hex;
const USDC_A = "0x1000000000000000000000000000000000000001" as Hex;
const USDC_B = "0x2000000000000000000000000000000000000002" as Hex;
const DAI_B = "0x2000000000000000000000000000000000000003" as Hex;

const chains = [
  offlineSpokeChain(8453, [{ symbol: "USDC", address: USDC_A, decimals: 6 }]),
  offlineSpokeChain(10, [
    { symbol: "USDC", address: USDC_B, decimals: 6 },
    { symbol: "DAI", address: DAI_B, decimals: 18 },
  ]),
];

function deposit(over: Partial<PendingDeposit["relayData"]> = {}): PendingDeposit {
  return {
    originChainId: 8453,
    destinationChainId: 10,
    depositId: 1n,
    internalRelayHash: zeroHash,
    relayHash: zeroHash,
    quoteTimestamp: 900,
    blockTimestamp: 900,
    relayData: {
      depositor: addressToBytes32(OTHER),
      recipient: addressToBytes32(OTHER),
      exclusiveRelayer: zeroHash,
      inputToken: addressToBytes32(USDC_A),
      outputToken: addressToBytes32(USDC_B),
      inputAmount: 100_000_000n,
      outputAmount: 99_000_000n,
      originChainId: 8453n,
      depositId: 1n,
      fillDeadline: 2000,
      exclusivityDeadline: 0,
      message: "0x",
      ...over,
    },
  };
}

const input = (d: PendingDeposit, over: Partial<EligibilityInput> = {}): EligibilityInput => ({
  deposit: d,
  now: 1000,
  relayer: ME,
  chains,
  isRouteEnabled: () => true,
  ...over,
});

describe("checkEligibility", () => {
  it("accepts a plain same-token deposit", () => {
    expect(checkEligibility(input(deposit()))).toEqual({ ok: true });
  });

  it("skips an expired deposit (fillDeadline < chain time), not one expiring right now", () => {
    expect(checkEligibility(input(deposit({ fillDeadline: 999 })))).toMatchObject({ ok: false, reason: "expired" });
    expect(checkEligibility(input(deposit({ fillDeadline: 1000 })))).toEqual({ ok: true });
  });

  it("skips while another relayer is exclusive (deadline >= now), fills once it passes or when we are exclusive", () => {
    const other = deposit({ exclusiveRelayer: addressToBytes32(OTHER), exclusivityDeadline: 1000 });
    expect(checkEligibility(input(other))).toMatchObject({ ok: false, reason: "exclusive" });
    expect(checkEligibility(input(other, { now: 1001 }))).toEqual({ ok: true });
    const mine = deposit({ exclusiveRelayer: addressToBytes32(ME), exclusivityDeadline: 5000 });
    expect(checkEligibility(input(mine))).toEqual({ ok: true });
    // A zero exclusive relayer never blocks, whatever the deadline.
    expect(isExclusiveToOther(deposit({ exclusivityDeadline: 5000 }), 1000, ME)).toBe(false);
  });

  it("skips unknown tokens, different-symbol routes and disabled routes", () => {
    const unknown = deposit({ outputToken: addressToBytes32("0x00000000000000000000000000000000000000aa") });
    expect(checkEligibility(input(unknown))).toMatchObject({ ok: false, reason: "unknown-token" });
    const toDai = deposit({ outputToken: addressToBytes32(DAI_B) });
    expect(checkEligibility(input(toDai))).toMatchObject({ ok: false, reason: "different-tokens" });
    const seen: unknown[] = [];
    const disabled = checkEligibility(
      input(deposit(), {
        isRouteEnabled: (r) => {
          seen.push(r);
          return false;
        },
      }),
    );
    expect(disabled).toMatchObject({ ok: false, reason: "route-disabled" });
    expect(seen).toEqual([{ originChainId: 8453, destinationChainId: 10, inputToken: USDC_A, outputToken: USDC_B }]);
  });

  it("skips non-EVM recipients and tokens", () => {
    const solana = `0x${"ab".repeat(32)}` as Hex;
    expect(checkEligibility(input(deposit({ recipient: solana })))).toMatchObject({ reason: "non-evm-address" });
    expect(checkEligibility(input(deposit({ outputToken: solana })))).toMatchObject({ reason: "non-evm-address" });
  });
});

describe("profitability", () => {
  const base = { inputDecimals: 6, outputDecimals: 6, fillCost: 0n, marginBps: 10 };

  it("requires fee >= cost + margin x input / 10 000", () => {
    // 100 USDC in, 10 bps = 0.1 USDC margin.
    expect(profitability({ ...base, inputAmount: 100_000_000n, outputAmount: 99_900_000n })).toEqual({
      ok: true,
      fee: 100_000n,
      required: 100_000n,
    });
    expect(profitability({ ...base, inputAmount: 100_000_000n, outputAmount: 99_900_001n }).ok).toBe(false);
    const withCost = profitability({ ...base, inputAmount: 100_000_000n, outputAmount: 99_900_000n, fillCost: 1n });
    expect(withCost).toMatchObject({ ok: false, required: 100_001n });
    expect(checkProfitability({ ...base, inputAmount: 100n, outputAmount: 100n, marginBps: 0 })).toEqual({ ok: true });
  });

  it("rounds the margin up and supports fractional bps", () => {
    expect(profitability({ ...base, inputAmount: 1n, outputAmount: 0n, marginBps: 1 }).required).toBe(1n);
    expect(profitability({ ...base, inputAmount: 1_000_000n, outputAmount: 0n, marginBps: 0.5 }).required).toBe(50n);
  });

  it("compares amounts after converting decimals", () => {
    expect(convertDecimals(1_500_000n, 6, 18)).toBe(1_500_000_000_000_000_000n);
    expect(convertDecimals(1_999_999_999_999n, 18, 6)).toBe(1n);
    // 100 DAI-like (18) in, 99.9 (6) out: 0.1 fee, 10 bps needs 0.1.
    const r = profitability({
      inputAmount: 100n * 10n ** 18n,
      inputDecimals: 18,
      outputAmount: 99_900_000n,
      outputDecimals: 6,
      fillCost: 0n,
      marginBps: 10,
    });
    expect(r).toEqual({ ok: true, fee: 100_000n, required: 100_000n });
  });

  it("rejects a deposit paying out more than it takes in", () => {
    expect(checkProfitability({ ...base, inputAmount: 10n, outputAmount: 11n, marginBps: 0 })).toMatchObject({
      ok: false,
      reason: "unprofitable",
    });
  });
});

describe("checkFunds", () => {
  const funds = { outputAmount: 100n, tokenBalance: 150n, tokenReserved: 0n, nativeBalance: 10n, nativeNeeded: 10n };
  it("needs the output amount beyond what in-flight fills will take, and the gas", () => {
    expect(checkFunds(funds)).toEqual({ ok: true });
    expect(checkFunds({ ...funds, tokenReserved: 51n })).toMatchObject({ reason: "insufficient-balance" });
    expect(checkFunds({ ...funds, nativeBalance: 9n })).toMatchObject({ reason: "insufficient-gas" });
  });
});
