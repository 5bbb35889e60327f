import { applyPct, convertDecimals, MAX_UINT256, percent, WAD } from "./fixedPoint.ts";

/**
 * Relayer gas fee: the destination-chain cost of the fill transaction, charged in the input token.
 *
 * `tokenGasCost` (native wei) = gas units × gas price (+ OP-stack L1 data fee); it is converted to token
 * units through the token's price in the destination native token, then expressed as a pct of the amount.
 */

/** Inputs of {@link tokenGasCost}. */
export interface GasCostInput {
  /** Gas units of the simulated `fillRelay` on the destination chain. */
  nativeGasUnits: bigint;
  /** Destination gas price (max fee per gas), wei per gas unit. */
  gasPrice: bigint;
  /** L1 data fee in wei on OP-stack destinations; 0/omitted elsewhere. */
  opStackL1GasCost?: bigint;
}

/** Fill cost in destination native wei: `nativeGasUnits * gasPrice + opStackL1GasCost`. */
export function tokenGasCost(input: GasCostInput): bigint {
  return input.nativeGasUnits * input.gasPrice + (input.opStackL1GasCost ?? 0n);
}

/**
 * Markup on the simulated gas of a fill that carries a message, in basis points (10 %). A message's calls (a
 * destination swap, actions) cost gas that depends on the destination's state when the fill runs, which moves
 * between the quote and the fill (pool reserves, storage slots that go from zero to non-zero), and the
 * simulation runs with the quote's nominal amounts, not the deposit's. The relayer prices the fill again with
 * its own simulation of the real deposit and skips it below cost: a quote at the exact simulated cost would
 * leave it unfilled whenever the fill costs a few hundred gas more than simulated.
 */
export const MESSAGE_FILL_GAS_MARKUP_BPS = 1_000n;

/** The gas a message fill is quoted with: the simulation plus {@link MESSAGE_FILL_GAS_MARKUP_BPS}. */
export function quotedMessageFillGas(simulatedGas: bigint): bigint {
  return (simulatedGas * (10_000n + MESSAGE_FILL_GAS_MARKUP_BPS) + 9_999n) / 10_000n;
}

/**
 * Convert a native amount into token units: `convertDecimals(nativeAmount * 1e18 / price, nativeDecimals,
 * tokenDecimals)`, where `tokenPriceInNative` is the price of 1 token in the destination native token,
 * 1e18-scaled (e.g. WETH on an ETH chain ≈ 1e18, USDC at 2,500 USD/ETH = 4e14). Throws on a non-positive price.
 */
export function nativeToToken(
  nativeAmount: bigint,
  tokenPriceInNative: bigint,
  tokenDecimals: number,
  nativeDecimals = 18,
): bigint {
  if (tokenPriceInNative <= 0n) throw new RangeError("nativeToToken: token price must be positive");
  return convertDecimals((nativeAmount * WAD) / tokenPriceInNative, nativeDecimals, tokenDecimals);
}

/**
 * Gas fee pct relative to the relayed amount: `gasFeeInToken * 1e18 / amount`.
 * {@link MAX_UINT256} when the amount is 0 (the same convention as the capital fee).
 */
export function gasFeePercent(gasFeeInToken: bigint, amount: bigint): bigint {
  if (amount === 0n) return MAX_UINT256;
  return percent(gasFeeInToken, amount);
}

/** `gasFeePct * amount / 1e18`; floors twice overall, so it can be a unit below `gasFeeInToken`. */
export function gasFeeTotal(amount: bigint, gasFeePct: bigint): bigint {
  return applyPct(amount, gasFeePct);
}

/** Inputs of {@link computeGasFee}. */
export interface GasFeeInput extends GasCostInput {
  /** Amount to relay, in input token units (the pct is relative to it). */
  amount: bigint;
  /** Decimals of the token the fee is charged in (the input token). */
  tokenDecimals: number;
  /** Price of 1 token in the destination native token, 1e18-scaled. */
  tokenPriceInNative: bigint;
  /** Destination native token decimals; default 18. */
  nativeDecimals?: number;
}

/** Result of {@link computeGasFee}. */
export interface GasFeeResult {
  nativeGasCost: bigint;
  gasPrice: bigint;
  opStackL1GasCost: bigint;
  /** Native wei. */
  tokenGasCost: bigint;
  /** Token units, before expressing it as a pct. */
  gasFeeInToken: bigint;
  pct: bigint;
  total: bigint;
}

/** Full gas fee: native cost → token units → pct of amount → total. */
export function computeGasFee(input: GasFeeInput): GasFeeResult {
  const cost = tokenGasCost(input);
  const gasFeeInToken = nativeToToken(cost, input.tokenPriceInNative, input.tokenDecimals, input.nativeDecimals);
  const pct = gasFeePercent(gasFeeInToken, input.amount);
  return {
    nativeGasCost: input.nativeGasUnits,
    gasPrice: input.gasPrice,
    opStackL1GasCost: input.opStackL1GasCost ?? 0n,
    tokenGasCost: cost,
    gasFeeInToken,
    pct,
    total: gasFeeTotal(input.amount, pct),
  };
}

/** The `/limits` `gasFeeDetails` object (decimal strings). */
export interface GasFeeDetailsJson {
  nativeGasCost: string;
  opStackL1GasCost: string;
  gasPrice: string;
  tokenGasCost: string;
}

/** Serialize a {@link GasFeeResult} as the `/limits` `gasFeeDetails` object. */
export function toGasFeeDetailsJson(result: GasFeeResult): GasFeeDetailsJson {
  return {
    nativeGasCost: result.nativeGasCost.toString(),
    opStackL1GasCost: result.opStackL1GasCost.toString(),
    gasPrice: result.gasPrice.toString(),
    tokenGasCost: result.tokenGasCost.toString(),
  };
}
