/**
 * ABI encodings and leaf hashes of the three Across leaf structs. The contracts hash a leaf as
 * `keccak256(abi.encode(leaf))` (MerkleLib.sol verifyPoolRebalance / verifyRelayerRefund /
 * verifyV3SlowRelayFulfillment): the struct is ONE dynamic tuple parameter, so the encoding starts with a
 * 0x20 offset word. Encoding the fields as separate top-level parameters would hash differently.
 */
import { type AbiParameter, encodeAbiParameters, type Hex, keccak256 } from "viem";
import { relayDataHead } from "../../domain/relayHash.ts";
import type { PoolRebalanceLeaf, RelayerRefundLeaf, SlowFillLeaf } from "../types.ts";

/** `HubPoolInterface.PoolRebalanceLeaf` components, in ABI order. */
export const POOL_REBALANCE_LEAF_COMPONENTS = [
  { name: "chainId", type: "uint256" },
  { name: "bundleLpFees", type: "uint256[]" },
  { name: "netSendAmounts", type: "int256[]" },
  { name: "runningBalances", type: "int256[]" },
  { name: "groupIndex", type: "uint256" },
  { name: "leafId", type: "uint8" },
  { name: "l1Tokens", type: "address[]" },
] as const satisfies readonly AbiParameter[];

/** `SpokePoolInterface.RelayerRefundLeaf` components, in ABI order. */
export const RELAYER_REFUND_LEAF_COMPONENTS = [
  { name: "amountToReturn", type: "uint256" },
  { name: "chainId", type: "uint256" },
  { name: "refundAmounts", type: "uint256[]" },
  { name: "leafId", type: "uint32" },
  { name: "l2TokenAddress", type: "address" },
  { name: "refundAddresses", type: "address[]" },
] as const satisfies readonly AbiParameter[];

/** `V3SpokePoolInterface.V3RelayData` components (addresses as bytes32), in ABI order: the relay hash's. */
export const V3_RELAY_DATA_COMPONENTS = [
  ...relayDataHead,
  { name: "message", type: "bytes" },
] as const satisfies readonly AbiParameter[];

/** `V3SpokePoolInterface.V3SlowFill` components, in ABI order. */
export const SLOW_FILL_LEAF_COMPONENTS = [
  { name: "relayData", type: "tuple", components: V3_RELAY_DATA_COMPONENTS },
  { name: "chainId", type: "uint256" },
  { name: "updatedOutputAmount", type: "uint256" },
] as const satisfies readonly AbiParameter[];

const POOL_REBALANCE_PARAMS = [{ type: "tuple", components: POOL_REBALANCE_LEAF_COMPONENTS }] as const;
const RELAYER_REFUND_PARAMS = [{ type: "tuple", components: RELAYER_REFUND_LEAF_COMPONENTS }] as const;
const SLOW_FILL_PARAMS = [{ type: "tuple", components: SLOW_FILL_LEAF_COMPONENTS }] as const;

/** `abi.encode(PoolRebalanceLeaf)`. */
export function encodePoolRebalanceLeaf(leaf: PoolRebalanceLeaf): Hex {
  return encodeAbiParameters(POOL_REBALANCE_PARAMS, [leaf]);
}

/** `abi.encode(RelayerRefundLeaf)`. */
export function encodeRelayerRefundLeaf(leaf: RelayerRefundLeaf): Hex {
  return encodeAbiParameters(RELAYER_REFUND_PARAMS, [leaf]);
}

/** `abi.encode(V3SlowFill)`. */
export function encodeSlowFillLeaf(leaf: SlowFillLeaf): Hex {
  return encodeAbiParameters(SLOW_FILL_PARAMS, [leaf]);
}

/** The pool rebalance leaf hash the HubPool verifies (`keccak256(abi.encode(leaf))`, no second hash). */
export function hashPoolRebalanceLeaf(leaf: PoolRebalanceLeaf): Hex {
  return keccak256(encodePoolRebalanceLeaf(leaf));
}

/** The relayer refund leaf hash a SpokePool verifies. */
export function hashRelayerRefundLeaf(leaf: RelayerRefundLeaf): Hex {
  return keccak256(encodeRelayerRefundLeaf(leaf));
}

/** The slow fill leaf hash a SpokePool verifies (with `chainId` = the spoke's own chain). */
export function hashSlowFillLeaf(leaf: SlowFillLeaf): Hex {
  return keccak256(encodeSlowFillLeaf(leaf));
}
