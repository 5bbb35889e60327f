/**
 * A USDC deposit made by hand with viem, as a user of the devnet manifest would: the first demo user
 * approves the origin SpokePool and calls `deposit` to themselves on the destination. For end-to-end
 * tests that run the platform as processes (no devnet fixture, only the manifest).
 */
import {
  type DevnetChainManifest,
  type DevnetManifest,
  loadArtifact,
  manifestChain,
  manifestToken,
  viemChain,
} from "@platform/chains";
import { createPublicClient, createWalletClient, erc20Abi, http, pad } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** A viem public client of a manifest chain. */
export const manifestClient = (chain: DevnetChainManifest) =>
  createPublicClient({ chain: viemChain(chain.chainId, chain.rpcUrl), transport: http(chain.rpcUrl) });

/** The first demo user's account (its key is in the manifest, marked devnet-only). */
export const demoUser = (manifest: DevnetManifest) =>
  privateKeyToAccount(manifest.accounts.users[0]?.privateKey as `0x${string}`);

/** Deposits `amount` USDC (base units) from origin to destination for `outputAmount`; returns the receipt. */
export async function depositUsdcByHand(
  manifest: DevnetManifest,
  p: { origin: number; destination: number; amount: bigint; outputAmount: bigint },
) {
  const origin = manifestChain(manifest, p.origin);
  const destination = manifestChain(manifest, p.destination);
  const user = demoUser(manifest);
  const client = manifestClient(origin);
  const wallet = createWalletClient({
    account: user,
    chain: viemChain(origin.chainId, origin.rpcUrl),
    transport: http(origin.rpcUrl),
  });
  const usdc = manifestToken(origin, "USDC").address;
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "approve",
      args: [origin.contracts.spokePool, p.amount],
    }),
  });
  const b32 = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
  const now = Number((await client.getBlock()).timestamp);
  return client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: origin.contracts.spokePool,
      abi: loadArtifact("Ethereum_SpokePool").abi,
      functionName: "deposit",
      args: [
        b32(user.address),
        b32(user.address),
        b32(usdc),
        b32(manifestToken(destination, "USDC").address),
        p.amount,
        p.outputAmount,
        BigInt(p.destination),
        b32("0x0000000000000000000000000000000000000000"),
        now,
        now + 3600,
        0,
        "0x",
      ],
    }),
  });
}
