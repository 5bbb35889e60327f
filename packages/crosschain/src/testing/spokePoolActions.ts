/**
 * Test support: real SpokePool deposits and fills on the devnet fixture, with viem and devnet accounts.
 */
import { loadArtifact, manifestToken } from "@platform/chains";
import type { DevnetFixture } from "@platform/chains/testing";
import { erc20Abi, type Hex, pad, parseEventLogs, zeroAddress } from "viem";
import type { RelayData } from "../domain/relayHash.ts";

const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;
const b32 = (a: string) => pad(a.toLowerCase() as Hex, { size: 32 });

export interface MadeDeposit {
  depositId: bigint;
  txHash: Hex;
  blockNumber: bigint;
  relayData: RelayData;
  destinationChainId: number;
}

export async function makeDeposit(
  f: DevnetFixture,
  o: {
    origin: number;
    destination: number;
    symbol?: string;
    amount: bigint;
    outputAmount: bigint;
    user?: number;
    recipient?: `0x${string}`;
    fillDeadlineOffset?: number;
    message?: Hex;
    /** 2-byte integrator id appended to the calldata the way the app-sdk does (`1dc0de` + id). */
    integratorId?: Hex;
  },
): Promise<MadeDeposit> {
  const user = f.accounts.users[o.user ?? 0];
  if (!user) throw new Error("no such demo user");
  const origin = f.chain(o.origin);
  const dest = f.chain(o.destination);
  const inputToken = manifestToken(origin, o.symbol ?? "USDC").address;
  const outputToken = manifestToken(dest, o.symbol ?? "USDC").address;
  const client = f.publicClient(o.origin);
  const wallet = f.walletClient(o.origin, user);
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: inputToken,
      abi: erc20Abi,
      functionName: "approve",
      args: [origin.contracts.spokePool, o.amount],
    }),
  });
  const now = Number((await client.getBlock()).timestamp);
  const recipient = o.recipient ?? user.address;
  const fillDeadline = now + (o.fillDeadlineOffset ?? 3600);
  const message = o.message ?? "0x";
  const hash = await wallet.writeContract({
    dataSuffix: o.integratorId ? `0x1dc0de${o.integratorId.slice(2)}` : undefined,
    address: origin.contracts.spokePool,
    abi: spokeAbi,
    functionName: "deposit",
    args: [
      b32(user.address),
      b32(recipient),
      b32(inputToken),
      b32(outputToken),
      o.amount,
      o.outputAmount,
      BigInt(o.destination),
      b32(zeroAddress),
      now,
      fillDeadline,
      0,
      message,
    ],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  const [event] = parseEventLogs({ abi: spokeAbi, logs: receipt.logs, eventName: "FundsDeposited" });
  if (!event) throw new Error("no FundsDeposited");
  const a = event.args as unknown as { depositId: bigint; exclusivityDeadline: number };
  return {
    depositId: a.depositId,
    txHash: hash,
    blockNumber: receipt.blockNumber,
    destinationChainId: o.destination,
    relayData: {
      depositor: b32(user.address),
      recipient: b32(recipient),
      exclusiveRelayer: b32(zeroAddress),
      inputToken: b32(inputToken),
      outputToken: b32(outputToken),
      inputAmount: o.amount,
      outputAmount: o.outputAmount,
      originChainId: BigInt(o.origin),
      depositId: a.depositId,
      fillDeadline,
      exclusivityDeadline: Number(a.exclusivityDeadline),
      message,
    },
  };
}

/** Fills a deposit on its destination with the devnet relayer account (approving the output token first). */
export async function fillDeposit(f: DevnetFixture, d: MadeDeposit): Promise<Hex> {
  const dest = f.chain(d.destinationChainId);
  const relayer = f.accounts.relayer;
  const client = f.publicClient(d.destinationChainId);
  const wallet = f.walletClient(d.destinationChainId, relayer);
  const outputToken = `0x${d.relayData.outputToken.slice(26)}` as Hex;
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: outputToken,
      abi: erc20Abi,
      functionName: "approve",
      args: [dest.contracts.spokePool, d.relayData.outputAmount],
    }),
  });
  const hash = await wallet.writeContract({
    address: dest.contracts.spokePool,
    abi: spokeAbi,
    functionName: "fillRelay",
    args: [d.relayData, BigInt(d.destinationChainId), b32(relayer.address)],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("fill reverted");
  return hash;
}

/** The fixture's chains as the platform context gives them to services. */
export const contextChains = (f: DevnetFixture) =>
  f.manifest.chains.map((c) => ({
    chainId: c.chainId,
    rpcUrl: c.rpcUrl,
    contracts: { ...c.contracts } as Record<string, string>,
    tokens: c.tokens.map(({ symbol, address, decimals }) => ({ symbol, address, decimals })),
    wrappedNativeToken: c.wrappedNativeToken,
  }));
