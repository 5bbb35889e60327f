/**
 * Whether to fill a deposit: pure rules, no I/O. The worker applies them in this order, cheapest first:
 * `checkEligibility` (addresses, deadline, exclusivity, tokens, route), `checkProfitability` (after the
 * optional cost estimate), `checkFunds` (after reading balances). Every "no" carries a reason; none of them
 * is final: the deposit stays pending and is looked at again on the next poll.
 */
import { type Hex, zeroHash } from "viem";
import { findToken, type SpokeChain } from "../deployments.ts";
import { convertDecimals } from "../domain/fees/fixedPoint.ts";
import { addressToBytes32, bytes32ToAddress, isEvmAddressBytes32 } from "../domain/relayHash.ts";
import { fillTerms, type PendingDeposit, type SkipReason } from "./types.ts";

export type Check = { ok: true } | { ok: false; reason: SkipReason; detail: string };

const OK: Check = { ok: true };
const no = (reason: SkipReason, detail: string): Check => ({ ok: false, reason, detail });

export interface Route {
  originChainId: number;
  destinationChainId: number;
  inputToken: `0x${string}`;
  outputToken: `0x${string}`;
}

/** True while only another relayer may fill: a non-zero exclusive relayer that is not us, deadline not passed. */
export function isExclusiveToOther(deposit: PendingDeposit, now: number, relayer: Hex): boolean {
  const { exclusiveRelayer, exclusivityDeadline } = deposit.relayData;
  if (exclusiveRelayer.toLowerCase() === zeroHash) return false;
  if (exclusivityDeadline < now) return false;
  return exclusiveRelayer.toLowerCase() !== addressToBytes32(relayer);
}

export interface EligibilityInput {
  deposit: PendingDeposit;
  /** Destination chain time (seconds): its latest block's timestamp. */
  now: number;
  /** Our address. */
  relayer: Hex;
  chains: readonly SpokeChain[];
  isRouteEnabled(route: Route): boolean;
}

/** Rules that need no chain reads beyond the destination's time. */
export function checkEligibility(input: EligibilityInput): Check {
  const { deposit, now } = input;
  const d = deposit.relayData;
  for (const [name, value] of [
    ["inputToken", d.inputToken],
    ["outputToken", d.outputToken],
    ["recipient", fillTerms(deposit).recipient],
  ] as const) {
    if (!isEvmAddressBytes32(value)) return no("non-evm-address", `${name} ${value} is not an EVM address`);
  }
  if (d.fillDeadline < now) return no("expired", `fill deadline ${d.fillDeadline} < chain time ${now}`);
  if (isExclusiveToOther(deposit, now, input.relayer)) {
    return no("exclusive", `exclusive to ${d.exclusiveRelayer} until ${d.exclusivityDeadline} (chain time ${now})`);
  }
  const inputToken = bytes32ToAddress(d.inputToken);
  const outputToken = bytes32ToAddress(d.outputToken);
  const tokenIn = findToken(input.chains, deposit.originChainId, inputToken);
  const tokenOut = findToken(input.chains, deposit.destinationChainId, outputToken);
  if (!tokenIn) return no("unknown-token", `input token ${inputToken} unknown on chain ${deposit.originChainId}`);
  if (!tokenOut) return no("unknown-token", `output token ${outputToken} unknown on ${deposit.destinationChainId}`);
  if (tokenIn.symbol.toUpperCase() !== tokenOut.symbol.toUpperCase()) {
    return no("different-tokens", `${tokenIn.symbol} -> ${tokenOut.symbol} needs a price; not filled`);
  }
  const route = {
    originChainId: deposit.originChainId,
    destinationChainId: deposit.destinationChainId,
    inputToken,
    outputToken,
  };
  if (!input.isRouteEnabled(route)) return no("route-disabled", `route ${JSON.stringify(route)} is not enabled`);
  return OK;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

export interface ProfitabilityInput {
  inputAmount: bigint;
  inputDecimals: number;
  outputAmount: bigint;
  outputDecimals: number;
  /** Cost of the fill in output-token units (0 when gas is ignored). */
  fillCost: bigint;
  /** Required margin in basis points of the input amount (two decimals kept: 0.5 bps works). */
  marginBps: number;
}

export interface Profitability {
  ok: boolean;
  /** input (in output decimals) − output. */
  fee: bigint;
  /** fillCost + marginBps × input / 10 000, rounded up. */
  required: bigint;
}

/** fee = input − output (same token, decimals converted) must cover the fill cost plus the margin. */
export function profitability(p: ProfitabilityInput): Profitability {
  const input = convertDecimals(p.inputAmount, p.inputDecimals, p.outputDecimals);
  const fee = input - p.outputAmount;
  const margin = ceilDiv(input * BigInt(Math.round(p.marginBps * 100)), 1_000_000n);
  const required = p.fillCost + margin;
  return { ok: fee >= required, fee, required };
}

export function checkProfitability(p: ProfitabilityInput): Check {
  const r = profitability(p);
  return r.ok ? OK : no("unprofitable", `fee ${r.fee} < required ${r.required} (cost ${p.fillCost})`);
}

export interface FundsInput {
  outputAmount: bigint;
  /** Our output-token balance on the destination. */
  tokenBalance: bigint;
  /** Output amounts of our fills of the same token still in flight (not yet taken from the balance). */
  tokenReserved: bigint;
  nativeBalance: bigint;
  /** gas limit × max fee per gas of the fill. */
  nativeNeeded: bigint;
}

export function checkFunds(p: FundsInput): Check {
  const available = p.tokenBalance - p.tokenReserved;
  if (available < p.outputAmount) {
    return no("insufficient-balance", `need ${p.outputAmount}, have ${available} (${p.tokenReserved} in flight)`);
  }
  if (p.nativeBalance < p.nativeNeeded)
    return no("insufficient-gas", `need ${p.nativeNeeded}, have ${p.nativeBalance}`);
  return OK;
}
