import type { SpokeChain } from "../deployments.ts";

/**
 * A SpokeChain for tests of pure logic that never reach a node: an unreachable RPC URL, a made-up
 * SpokePool address, no wrapped native token unless `over` gives one.
 */
export const offlineSpokeChain = (
  chainId: number,
  tokens: SpokeChain["tokens"],
  over: Partial<SpokeChain> = {},
): SpokeChain => ({
  chainId,
  rpcUrl: "http://127.0.0.1:1",
  spokePool: "0x9000000000000000000000000000000000000009",
  multicallHandler: undefined,
  wrappedNativeToken: undefined,
  contracts: {},
  tokens,
  ...over,
});
