/**
 * Makes the HubPool know every spoke before the first bundle: `setCrossChainContracts` (adapter and spoke per
 * chain) and `setPoolRebalanceRoute` (each token's counterpart per chain). Each value is read first and sent
 * only when it differs, so running this on every start, or after a kill halfway, is harmless. Only the
 * devnet is configured this way (its Mock_Adapter serves every chain); elsewhere the HubPool's owner has done
 * it, and a missing route is reported instead.
 */
import type { Logger } from "@platform/kernel";
import { type Address, encodeFunctionData, getAddress, type PrivateKeyAccount, zeroAddress } from "viem";
import { hubPoolAbi, type SettlementChains } from "./settlementChains.ts";

export interface HubSetupParameters {
  chains: SettlementChains;
  account: PrivateKeyAccount;
  logger: Logger;
}

/** Sends one owner call on the hub and waits for it (read-before-send makes a repeat harmless). */
async function ownerCall(p: HubSetupParameters, functionName: string, args: readonly unknown[]) {
  const client = p.chains.clientOf(p.chains.hubChainId);
  const data = encodeFunctionData({ abi: hubPoolAbi, functionName, args } as never);
  const request = await client.prepareTransactionRequest({
    account: p.account,
    chain: client.chain,
    to: p.chains.hubPool,
    data,
  });
  const raw = await p.account.signTransaction(request as never);
  const hash = await client.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 60_000, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`HubPool ${functionName} reverted (${hash})`);
}

/** Ensures the HubPool's cross-chain contracts and pool rebalance routes; returns how many it set. */
export async function ensureHubSetup(p: HubSetupParameters): Promise<number> {
  const { chains } = p;
  const hub = chains.clientOf(chains.hubChainId);
  const read = (functionName: string, args: readonly unknown[]) =>
    hub.readContract({ address: chains.hubPool, abi: hubPoolAbi, functionName, args } as never) as Promise<unknown>;
  let sent = 0;
  const missing: string[] = [];
  for (const c of chains.chains) {
    const [adapter, spoke] = (await read("crossChainContracts", [BigInt(c.chainId)])) as [Address, Address];
    if (getAddress(spoke) !== getAddress(c.spokePool) || adapter === zeroAddress) {
      if (!chains.mockAdapter) missing.push(`crossChainContracts(${c.chainId})`);
      else {
        await ownerCall(p, "setCrossChainContracts", [BigInt(c.chainId), chains.mockAdapter, c.spokePool]);
        sent++;
      }
    }
    for (const hubToken of chains.chain(chains.hubChainId).tokens) {
      const l2 = chains.tokens.l2TokenOf(c.chainId, hubToken.address);
      if (!l2) continue;
      const route = (await read("poolRebalanceRoute", [BigInt(c.chainId), hubToken.address])) as Address;
      if (getAddress(route) === getAddress(l2)) continue;
      if (!chains.mockAdapter) missing.push(`poolRebalanceRoute(${c.chainId}, ${hubToken.symbol})`);
      else {
        await ownerCall(p, "setPoolRebalanceRoute", [BigInt(c.chainId), hubToken.address, l2]);
        sent++;
      }
    }
  }
  if (missing.length) {
    p.logger.warn({ missing }, "the HubPool lacks routes: bundles naming them cannot execute");
  }
  if (sent) p.logger.info({ transactions: sent }, "configured the HubPool's spokes and routes");
  return sent;
}
