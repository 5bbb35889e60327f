/**
 * The USD figures of a filled deposit, as the anchor's `/deposits` records carry them (pure): the fill's gas
 * fee (native wei) and its USD value, and the bridge fee in USD = the input's value on the origin − the
 * output's value delivered on the destination. Prices are 1e18-scaled USD per whole token (the chain-state
 * cache's `prices.usd`, the ones the fee quote's USD amounts use); amounts in each token's smallest unit.
 */
import { formatUnits } from "viem";
import { WAD } from "./fees/fixedPoint.ts";

/** USD (1e18-scaled) of `amount` at `priceUsd` (1e18-scaled per whole token of `decimals`). */
const usdValue = (amount: bigint, priceUsd: bigint, decimals: number) => (amount * priceUsd) / 10n ** BigInt(decimals);

/** A fill's gas fee in wei: the receipt's `gasUsed × effectiveGasPrice`. */
export const fillGasFee = (receipt: { gasUsed: bigint; effectiveGasPrice: bigint }) =>
  receipt.gasUsed * receipt.effectiveGasPrice;

/** Input value − delivered output value, in USD (1e18-scaled; negative when the output is worth more). */
export function bridgeFeeUsd(
  input: { amount: bigint; decimals: number; priceUsd: bigint },
  output: { amount: bigint; decimals: number; priceUsd: bigint },
): bigint {
  return (
    usdValue(input.amount, input.priceUsd, input.decimals) - usdValue(output.amount, output.priceUsd, output.decimals)
  );
}

/**
 * What an origin swap cost in USD (1e18-scaled): the swapped tokens' value − the deposited input's value,
 * both at origin prices.
 */
export function swapFeeUsd(
  swapped: { amount: bigint; decimals: number; priceUsd: bigint },
  deposited: { amount: bigint; decimals: number; priceUsd: bigint },
): bigint {
  return bridgeFeeUsd(swapped, deposited);
}

/** A 1e18-scaled USD value as the anchor writes it ("3746.9406687316323"); null stays null. */
export const usdText = (value: bigint | null) => (value === null ? null : formatUnits(value, 18));

/** The gas fee's USD value: wei × USD per native coin (18 decimals on every EVM chain here). */
export const gasFeeUsd = (gasFeeWei: bigint, nativePriceUsd: bigint) => (gasFeeWei * nativePriceUsd) / WAD;
