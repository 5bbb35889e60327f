/**
 * The devnet's stand-in for the canonical bridges. On the devnet every chain's adapter is Mock_Adapter: when
 * the HubPool executes a pool rebalance leaf it locks the leaf's positive net sends in Mock_Bridge and
 * records the `relayRootBundle` call for the spoke, but nothing crosses to the other anvils. These steps do
 * what a bridge would, as the devnet admin (owner of every spoke, minter of every test token):
 * - tokens: the spoke on the leaf's chain is credited the same amount (minted; WETH is wrapped and sent);
 * - roots: the spoke's `relayRootBundle(relayerRefundRoot, slowRelayRoot)` is called (groupIndex 0 only);
 * - returns: a refund leaf's `amountToReturn`, which the spoke sent to its withdrawal recipient (the admin),
 *   reaches the HubPool on the hub chain.
 * Each is one durable step (txIntents), so a kill never credits twice.
 */
import { type Address, encodeFunctionData, getAddress, type Hex, parseEventLogs } from "viem";
import { erc20Abi, type SettlementChains, spokePoolAbi, weth9Abi } from "./settlementChains.ts";
import type { TxIntents } from "./txIntents.ts";

export interface DevnetBridge {
  /** Credits `amount` of `token` (the chain's own address) to `to` on `chainId`. */
  credit(bundleId: number, step: string, chainId: number, token: Address, to: Address, amount: bigint): Promise<void>;
  /** Relays the roots to `chainId`'s spoke; returns the root bundle id the spoke gave them. */
  relayRoots(bundleId: number, chainId: number, relayerRefundRoot: Hex, slowRelayRoot: Hex): Promise<number>;
}

export function createDevnetBridge(chains: SettlementChains, intents: TxIntents): DevnetBridge {
  const isWrappedNative = (chainId: number, token: Address) => {
    const weth = chains.chain(chainId).wrappedNativeToken;
    return weth !== undefined && getAddress(weth) === getAddress(token);
  };
  return {
    async credit(bundleId, step, chainId, token, to, amount) {
      if (amount <= 0n) return;
      if (isWrappedNative(chainId, token)) {
        await intents.send({
          bundleId,
          step: `${step}:wrap`,
          chainId,
          to: token,
          data: encodeFunctionData({ abi: weth9Abi, functionName: "deposit" }),
          value: amount,
        });
        await intents.send({
          bundleId,
          step,
          chainId,
          to: token,
          data: encodeFunctionData({ abi: weth9Abi, functionName: "transfer", args: [to, amount] }),
        });
        return;
      }
      await intents.send({
        bundleId,
        step,
        chainId,
        to: token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "mint", args: [to, amount] }),
      });
    },

    async relayRoots(bundleId, chainId, relayerRefundRoot, slowRelayRoot) {
      const receipt = await intents.send({
        bundleId,
        step: `relay-roots:${chainId}`,
        chainId,
        to: chains.chain(chainId).spokePool,
        data: encodeFunctionData({
          abi: spokePoolAbi,
          functionName: "relayRootBundle",
          args: [relayerRefundRoot, slowRelayRoot],
        }),
      });
      const [relayed] = parseEventLogs({ abi: spokePoolAbi, logs: receipt.logs, eventName: "RelayedRootBundle" });
      if (!relayed) throw new Error(`relayRootBundle on chain ${chainId} emitted no RelayedRootBundle`);
      return Number((relayed.args as { rootBundleId: number }).rootBundleId);
    },
  };
}
