/** EIP-1559 fees of a transaction (legacy chains: both equal the gas price). */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Minimum raise of a replacement, in per-mille: +12.5% (geth asks +10%; some nodes more). */
const REPLACEMENT_BUMP_PERMILLE = 125n;

const bump = (value: bigint) => value + (value * REPLACEMENT_BUMP_PERMILLE + 999n) / 1000n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** Fees of a replacement: each field at least +12.5% (rounded up, +1 wei at least) over the previous one, or the market's. */
export function bumpFees(previous: Fees, market: Fees): Fees {
  const maxPriorityFeePerGas = max(market.maxPriorityFeePerGas, max(bump(previous.maxPriorityFeePerGas), 1n));
  const maxFeePerGas = max(max(market.maxFeePerGas, bump(previous.maxFeePerGas)), maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** The higher of two fee pairs, field by field. */
export function maxFees(a: Fees, b: Fees): Fees {
  return {
    maxFeePerGas: max(a.maxFeePerGas, b.maxFeePerGas),
    maxPriorityFeePerGas: max(a.maxPriorityFeePerGas, b.maxPriorityFeePerGas),
  };
}
