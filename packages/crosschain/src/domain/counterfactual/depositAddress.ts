/**
 * Counterfactual deposit addresses (Across' `CounterfactualDepositFactory` clones), as pure functions: the
 * route a clone may deposit on, the two leaves of its merkle root (a SpokePool deposit leaf and a withdraw
 * leaf for refunds), the proofs, the EIP-712 `ExecuteDeposit` authorisation the beacon's signer gives, and
 * the fee cap the contract enforces. The clone's address is `factory.predictAddress(0, root)`: CREATE2 over the
 * root, so the same parameters give the same address on every chain where the factory and beacon sit at the
 * same addresses (they do on the devnet).
 */
import { type Address, concat, encodeAbiParameters, type Hex, keccak256, toFunctionSelector } from "viem";
import { addressToBytes32 } from "../relayHash.ts";

/** The beacon's getters a route names (their selectors go into the route). */
export const BEACON_TOKEN_GETTERS = {
  USDC: "usdc()",
  USDT: "usdt()",
  WBTC: "wbtc()",
  WETH: "weth()",
  ETH: "nativeToken()",
} as const;
export const BEACON_MAX_FEE_GETTERS = {
  USDC: "usdcSpokePoolMaxExecutionFee()",
  USDT: "usdtSpokePoolMaxExecutionFee()",
  WBTC: "wbtcSpokePoolMaxExecutionFee()",
  WETH: "wethSpokePoolMaxExecutionFee()",
  ETH: "wethSpokePoolMaxExecutionFee()",
} as const;
export type CounterfactualInputSymbol = keyof typeof BEACON_TOKEN_GETTERS;

/** Across' sentinel for the native coin in counterfactual routes and withdrawals. */
export const NATIVE_ASSET: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const EXCHANGE_RATE_SCALAR = 10n ** 18n;
const BPS = 10_000n;

/** `SpokePoolRouteParams` of CounterfactualDepositSpokePool. */
export interface SpokePoolRouteParams {
  inputSymbol: CounterfactualInputSymbol;
  destinationChainId: number;
  outputToken: Address;
  recipient: Address;
  message: Hex;
  /** Output → input units, 1e18-scaled (1e18 × 10^(inDecimals − outDecimals) for the same asset). */
  stableExchangeRate: bigint;
  maxFeeBps: number;
}

const routeParamsAbi = [
  {
    type: "tuple",
    components: [
      { name: "inputTokenGetter", type: "bytes4" },
      { name: "destinationChainId", type: "uint256" },
      { name: "outputToken", type: "bytes32" },
      { name: "recipient", type: "bytes32" },
      { name: "message", type: "bytes" },
      { name: "checkStableExchangeRate", type: "bool" },
      { name: "stableExchangeRate", type: "uint256" },
      { name: "maxExecutionFeeGetter", type: "bytes4" },
      { name: "maxFeeBps", type: "uint256" },
    ],
  },
] as const;

export function encodeRouteParams(p: SpokePoolRouteParams): Hex {
  return encodeAbiParameters(routeParamsAbi, [
    {
      inputTokenGetter: toFunctionSelector(BEACON_TOKEN_GETTERS[p.inputSymbol]),
      destinationChainId: BigInt(p.destinationChainId),
      outputToken: addressToBytes32(p.outputToken),
      recipient: addressToBytes32(p.recipient),
      message: p.message,
      checkStableExchangeRate: true,
      stableExchangeRate: p.stableExchangeRate,
      maxExecutionFeeGetter: toFunctionSelector(BEACON_MAX_FEE_GETTERS[p.inputSymbol]),
      maxFeeBps: BigInt(p.maxFeeBps),
    },
  ]);
}

/** `WithdrawParams {admin, user}`: either may move the clone's funds (the refund path). */
export const encodeWithdrawParams = (admin: Address, user: Address): Hex =>
  encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "admin", type: "address" },
          { name: "user", type: "address" },
        ],
      },
    ],
    [{ admin, user }],
  );

/** A leaf of the clone's root: `keccak(keccak(abi.encode(implementation, keccak(params))))`. */
export const leafOf = (implementation: Address, params: Hex): Hex =>
  keccak256(
    keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [implementation, keccak256(params)])),
  );

/** OpenZeppelin's commutative pair hash (MerkleProof sorts each pair). */
export const hashPair = (a: Hex, b: Hex): Hex =>
  BigInt(a) < BigInt(b) ? keccak256(concat([a, b])) : keccak256(concat([b, a]));

/** The clone's two leaves, its root and each leaf's proof (the other leaf). */
export interface DepositAddressTree {
  depositLeaf: Hex;
  withdrawLeaf: Hex;
  root: Hex;
}

export function depositAddressTree(o: {
  depositImplementation: Address;
  routeParams: Hex;
  withdrawImplementation: Address;
  withdrawParams: Hex;
}): DepositAddressTree {
  const depositLeaf = leafOf(o.depositImplementation, o.routeParams);
  const withdrawLeaf = leafOf(o.withdrawImplementation, o.withdrawParams);
  return { depositLeaf, withdrawLeaf, root: hashPair(depositLeaf, withdrawLeaf) };
}

/** `SpokePoolSubmitterData` without the signature. */
export interface SubmitterTerms {
  inputAmount: bigint;
  outputAmount: bigint;
  exclusiveRelayer: Address;
  exclusivityDeadline: number;
  executionFeeRecipient: Address;
  nonce: Hex;
  quoteTimestamp: number;
  fillDeadline: number;
  signatureDeadline: number;
  executionFee: bigint;
}

/** The EIP-712 typed data the beacon's signer signs for one execution of `clone`. */
export function executeDepositTypedData(chainId: number, clone: Address, routeParams: Hex, t: SubmitterTerms) {
  return {
    domain: { name: "CounterfactualDepositSpokePool", version: "v2.0.0", chainId, verifyingContract: clone },
    types: {
      ExecuteDeposit: [
        { name: "clone", type: "address" },
        { name: "routeParamsHash", type: "bytes32" },
        { name: "nonce", type: "bytes32" },
        { name: "inputAmount", type: "uint256" },
        { name: "outputAmount", type: "uint256" },
        { name: "exclusiveRelayer", type: "bytes32" },
        { name: "exclusivityDeadline", type: "uint32" },
        { name: "quoteTimestamp", type: "uint32" },
        { name: "fillDeadline", type: "uint32" },
        { name: "signatureDeadline", type: "uint32" },
        { name: "executionFee", type: "uint256" },
      ],
    },
    primaryType: "ExecuteDeposit" as const,
    message: {
      clone,
      routeParamsHash: keccak256(routeParams),
      nonce: t.nonce,
      inputAmount: t.inputAmount,
      outputAmount: t.outputAmount,
      exclusiveRelayer: addressToBytes32(t.exclusiveRelayer),
      exclusivityDeadline: t.exclusivityDeadline,
      quoteTimestamp: t.quoteTimestamp,
      fillDeadline: t.fillDeadline,
      signatureDeadline: t.signatureDeadline,
      executionFee: t.executionFee,
    },
  };
}

export function encodeSubmitterData(t: SubmitterTerms, signature: Hex): Hex {
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "inputAmount", type: "uint256" },
          { name: "outputAmount", type: "uint256" },
          { name: "exclusiveRelayer", type: "bytes32" },
          { name: "exclusivityDeadline", type: "uint32" },
          { name: "executionFeeRecipient", type: "address" },
          { name: "nonce", type: "bytes32" },
          { name: "quoteTimestamp", type: "uint32" },
          { name: "fillDeadline", type: "uint32" },
          { name: "signatureDeadline", type: "uint32" },
          { name: "executionFee", type: "uint256" },
          { name: "signature", type: "bytes" },
        ],
      },
    ],
    [{ ...t, exclusiveRelayer: addressToBytes32(t.exclusiveRelayer), signature }],
  );
}

/** The single-use nonce of the `seq`-th execution of a clone: a re-sent execution reuses it, so it deposits once. */
export const executionNonce = (clone: Address, seq: number): Hex =>
  keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [clone, BigInt(seq)]));

/**
 * The contract's fee cap: `(deposit − output × rate) + executionFee ≤ maxFeeFixed + maxFeeBps × input / 10⁴`,
 * with `deposit = input − executionFee`.
 */
export function withinFeeCap(o: {
  inputAmount: bigint;
  outputAmount: bigint;
  executionFee: bigint;
  stableExchangeRate: bigint;
  maxFeeFixed: bigint;
  maxFeeBps: number;
}): boolean {
  const deposit = o.inputAmount - o.executionFee;
  const outputInInput = (o.outputAmount * o.stableExchangeRate) / EXCHANGE_RATE_SCALAR;
  const relayerFee = deposit > outputInInput ? deposit - outputInInput : 0n;
  return relayerFee + o.executionFee <= o.maxFeeFixed + (BigInt(o.maxFeeBps) * o.inputAmount) / BPS;
}
