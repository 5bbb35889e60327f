import { type CapitalCostConfig, capitalFeePercent, capitalFeeTotal } from "./capitalFee.ts";
import { gasFeePercent, gasFeeTotal } from "./gasFee.ts";
import { DEFAULT_MAX_RELAY_FEE_PCT, minDepositForFees } from "./limits.ts";

/**
 * Relayer fee details: capital fee + gas fee of relaying an amount, and the fee-derived minimum deposit
 * (the anchor's `relayerFeeDetails`).
 */

/** Inputs of {@link computeRelayerFeeDetails}. */
export interface RelayerFeeDetailsInput {
  /** Amount to relay, input token units. */
  amount: bigint;
  capitalCostConfig: CapitalCostConfig;
  /** The fill's gas cost already converted to input token units (see `nativeToToken`). */
  gasFeeInToken: bigint;
  /** Extra fees that count towards the minimum deposit (not added to the relay fee); default 0. */
  auxFeeTotal?: bigint;
  /** Fee limit, default 25%. */
  maxRelayFeePct?: bigint;
}

/** Result of {@link computeRelayerFeeDetails}; pcts are 1e18-scaled, totals in input token units. */
export interface RelayerFeeDetails {
  gasFeePercent: bigint;
  gasFeeTotal: bigint;
  capitalFeePercent: bigint;
  capitalFeeTotal: bigint;
  /** gas + capital. */
  relayFeePercent: bigint;
  relayFeeTotal: bigint;
  /** Fee-derived minimum deposit: `(gasFeeTotal + aux) * 1e18 / (maxRelayFeePct - capitalFeePct)`. */
  minDeposit: bigint;
  /** `amount < minDeposit`. */
  isAmountTooLow: boolean;
}

/** Capital + gas fees of relaying `amount`, with the fee-derived minimum deposit. */
export function computeRelayerFeeDetails(input: RelayerFeeDetailsInput): RelayerFeeDetails {
  const gasPct = gasFeePercent(input.gasFeeInToken, input.amount);
  const gasTotal = gasFeeTotal(input.amount, gasPct);
  const capitalPct = capitalFeePercent(input.amount, input.capitalCostConfig);
  const capitalTotal = capitalFeeTotal(input.amount, capitalPct);
  const minDeposit = minDepositForFees({
    gasFeeTotal: gasTotal,
    auxFeeTotal: input.auxFeeTotal,
    capitalFeePct: capitalPct,
    maxRelayFeePct: input.maxRelayFeePct ?? DEFAULT_MAX_RELAY_FEE_PCT,
  });
  return {
    gasFeePercent: gasPct,
    gasFeeTotal: gasTotal,
    capitalFeePercent: capitalPct,
    capitalFeeTotal: capitalTotal,
    relayFeePercent: gasPct + capitalPct,
    relayFeeTotal: gasTotal + capitalTotal,
    minDeposit,
    isAmountTooLow: input.amount < minDeposit,
  };
}

/** The `/limits` `relayerFeeDetails` object (decimal strings). */
export interface RelayerFeeDetailsJson {
  relayFeeTotal: string;
  relayFeePercent: string;
  gasFeeTotal: string;
  gasFeePercent: string;
  capitalFeeTotal: string;
  capitalFeePercent: string;
}

/** Serialize as the `/limits` `relayerFeeDetails` object. */
export function toRelayerFeeDetailsJson(details: RelayerFeeDetails): RelayerFeeDetailsJson {
  return {
    relayFeeTotal: details.relayFeeTotal.toString(),
    relayFeePercent: details.relayFeePercent.toString(),
    gasFeeTotal: details.gasFeeTotal.toString(),
    gasFeePercent: details.gasFeePercent.toString(),
    capitalFeeTotal: details.capitalFeeTotal.toString(),
    capitalFeePercent: details.capitalFeePercent.toString(),
  };
}
