/**
 * Test support: real SpokePool deposits and fills on the devnet fixture, with viem and the devnet's demo
 * accounts, and a wait for a service's warm quote cache (exported as `@platform/crosschain/testing`; the
 * relayer's tests add their own helpers on top).
 */
import { loadArtifact, manifestChainEndpoints, manifestToken } from "@platform/chains";
import type { DevnetFixture } from "@platform/chains/testing";
import {
  type Address,
  decodeEventLog,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  type Log,
  maxUint256,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { addressToBytes32, internalRelayHash, messageHash, type RelayData, relayHash } from "../domain/relayHash.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";

export const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;

export interface DepositOptions {
  origin: number;
  destination: number;
  /** Input token symbol (default USDC); `outputSymbol` defaults to the same. */
  symbol?: string;
  outputSymbol?: string;
  inputAmount: bigint;
  outputAmount: bigint;
  /** Index of the demo user (default 0). */
  user?: number;
  recipient?: Address;
  exclusiveRelayer?: Address;
  /** Seconds of exclusivity from now (needs exclusiveRelayer). */
  exclusivityPeriod?: number;
  /** Fill deadline in seconds from now (default 3600). */
  fillDeadlineOffset?: number;
  message?: Hex;
  /** 2-byte integrator id appended to the calldata the way the app-sdk does (`1dc0de` + id). */
  integratorId?: Hex;
}

export interface MadeDeposit {
  depositId: bigint;
  txHash: Hex;
  blockNumber: bigint;
  blockTimestamp: number;
  /** The FundsDeposited log. */
  log: Log;
  relayData: RelayData;
  destinationChainId: number;
  /** On-chain relay hash (fillStatuses key). */
  relayHash: Hex;
  /** The indexer's relay hash. */
  internalRelayHash: Hex;
}

/** A real `deposit()` on the origin chain from a demo user (approving the SpokePool first when needed). */
export async function makeDeposit(f: DevnetFixture, o: DepositOptions): Promise<MadeDeposit> {
  const user = f.accounts.users[o.user ?? 0];
  if (!user) throw new Error("no such demo user");
  const origin = f.chain(o.origin);
  const inputToken = manifestToken(origin, o.symbol ?? "USDC").address;
  const outputToken = manifestToken(f.chain(o.destination), o.outputSymbol ?? o.symbol ?? "USDC").address;
  const client = f.publicClient(o.origin);
  const wallet = f.walletClient(o.origin, user);
  const allowance = await client.readContract({
    address: inputToken,
    abi: erc20Abi,
    functionName: "allowance",
    args: [user.address, origin.contracts.spokePool],
  });
  if (allowance < o.inputAmount) {
    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: inputToken,
        abi: erc20Abi,
        functionName: "approve",
        args: [origin.contracts.spokePool, maxUint256],
      }),
    });
  }
  const now = Number((await client.getBlock()).timestamp);
  const hash = await wallet.writeContract({
    dataSuffix: o.integratorId ? `0x1dc0de${o.integratorId.slice(2)}` : undefined,
    address: origin.contracts.spokePool,
    abi: spokeAbi,
    functionName: "deposit",
    args: [
      addressToBytes32(user.address),
      addressToBytes32(o.recipient ?? user.address),
      addressToBytes32(inputToken),
      addressToBytes32(outputToken),
      o.inputAmount,
      o.outputAmount,
      BigInt(o.destination),
      addressToBytes32(o.exclusiveRelayer ?? zeroAddress),
      now,
      now + (o.fillDeadlineOffset ?? 3600),
      o.exclusivityPeriod ?? 0,
      o.message ?? "0x",
    ],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("deposit reverted");
  const [log] = parseEventLogs({ abi: spokeAbi, logs: receipt.logs, eventName: "FundsDeposited" });
  if (!log) throw new Error("no FundsDeposited log");
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  const decoded = decodeDeposit(o.origin, log);
  return {
    depositId: decoded.relayData.depositId,
    txHash: hash,
    blockNumber: receipt.blockNumber,
    blockTimestamp: Number(block.timestamp),
    log,
    relayData: decoded.relayData,
    destinationChainId: decoded.destinationChainId,
    relayHash: relayHash(decoded.relayData, decoded.destinationChainId),
    internalRelayHash: decoded.internalRelayHash,
  };
}

export interface FundsDepositedArgs {
  inputToken: Hex;
  outputToken: Hex;
  inputAmount: bigint;
  outputAmount: bigint;
  destinationChainId: bigint;
  depositId: bigint;
  quoteTimestamp: number;
  fillDeadline: number;
  exclusivityDeadline: number;
  depositor: Hex;
  recipient: Hex;
  exclusiveRelayer: Hex;
  message: Hex;
}

/** A FundsDeposited log's arguments, relay data and relay hashes (decoded with viem: an independent check). */
export function decodeDeposit(originChainId: number, log: Log) {
  const { eventName, args } = decodeEventLog({ abi: spokeAbi, data: log.data, topics: log.topics as never });
  if (eventName !== "FundsDeposited") throw new Error(`not a FundsDeposited log: ${eventName}`);
  const a = args as unknown as FundsDepositedArgs;
  const relayData: RelayData = {
    depositor: a.depositor,
    recipient: a.recipient,
    exclusiveRelayer: a.exclusiveRelayer,
    inputToken: a.inputToken,
    outputToken: a.outputToken,
    inputAmount: a.inputAmount,
    outputAmount: a.outputAmount,
    originChainId: BigInt(originChainId),
    depositId: a.depositId,
    fillDeadline: Number(a.fillDeadline),
    exclusivityDeadline: Number(a.exclusivityDeadline),
    message: a.message,
  };
  const destinationChainId = Number(a.destinationChainId);
  return {
    a,
    relayData,
    destinationChainId,
    internalRelayHash: internalRelayHash(relayData, messageHash(a.message), destinationChainId),
  };
}

/**
 * Fills a deposit on its destination with the devnet relayer account (approving the output token first
 * unless the allowance suffices); `blockTimestamp` pins the fill block's time.
 */
export async function fillDeposit(
  f: DevnetFixture,
  d: MadeDeposit,
  options: { blockTimestamp?: number } = {},
): Promise<Hex> {
  const dest = f.chain(d.destinationChainId);
  const relayer = f.accounts.relayer;
  const client = f.publicClient(d.destinationChainId);
  const wallet = f.walletClient(d.destinationChainId, relayer);
  const outputToken = `0x${d.relayData.outputToken.slice(26)}` as Hex;
  const allowance = await client.readContract({
    address: outputToken,
    abi: erc20Abi,
    functionName: "allowance",
    args: [relayer.address, dest.contracts.spokePool],
  });
  if (allowance < d.relayData.outputAmount) {
    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: outputToken,
        abi: erc20Abi,
        functionName: "approve",
        args: [dest.contracts.spokePool, d.relayData.outputAmount],
      }),
    });
  }
  // Set after the approval, so that the fill's own block (not the approval's) gets this timestamp.
  if (options.blockTimestamp !== undefined) {
    await client.request({ method: "evm_setNextBlockTimestamp" as never, params: [options.blockTimestamp] as never });
  }
  const hash = await wallet.writeContract({
    address: dest.contracts.spokePool,
    abi: spokeAbi,
    functionName: "fillRelay",
    args: [d.relayData, BigInt(d.destinationChainId), addressToBytes32(relayer.address)],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("fill reverted");
  return hash;
}

/**
 * Waits until the service's quote cache holds every chain's state: the first quote after a start
 * otherwise waits at most 5 s for it and answers 503, which a loaded test machine can exceed.
 */
export async function quotesWarm(quotes: QuoteContext, timeoutMs = 20_000): Promise<void> {
  if (!(await quotes.cache.ready(timeoutMs))) throw new Error("the quote cache did not warm up");
}

/** The fixture's chains as the platform context gives them to services. */
export const contextChains = (f: DevnetFixture) => manifestChainEndpoints(f.manifest);

async function jsonRpc<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const reply = (await res.json()) as { result?: T; error?: { message: string } } | { error?: { message: string } }[];
  const failed = Array.isArray(reply) ? reply.find((r) => r.error) : reply.error ? reply : undefined;
  if (failed?.error) throw new Error(`JSON-RPC: ${failed.error.message}`);
  return (Array.isArray(reply) ? reply : reply.result) as T;
}

/**
 * Many deposits fast: USDC deposits of demo user `user` from `origin` to `destination`, `perBlock` to a
 * block (sent as one JSON-RPC batch with automine off, then one `evm_mine`; about 120 fit the 30M block
 * gas limit). `integratorId(i)` tags the i-th deposit's calldata like the app-sdk. Automine is restored.
 */
export async function mineDeposits(
  f: DevnetFixture,
  o: {
    origin: number;
    destination: number;
    count: number;
    perBlock: number;
    user?: number;
    integratorId?: (index: number) => Hex | undefined;
    onBlock?: (done: number) => void;
  },
): Promise<void> {
  const chain = f.chain(o.origin);
  const url = chain.rpcUrl;
  const user = f.accounts.users[o.user ?? 0]?.address;
  if (!user) throw new Error("no such demo user");
  const usdc = manifestToken(chain, "USDC").address;
  const outUsdc = manifestToken(f.chain(o.destination), "USDC").address;
  const approve = encodeFunctionData({
    abi: erc20Abi,
    functionName: "approve",
    args: [chain.contracts.spokePool, maxUint256],
  });
  await f.publicClient(o.origin).waitForTransactionReceipt({
    hash: await jsonRpc<Hex>(url, {
      jsonrpc: "2.0",
      id: 0,
      method: "eth_sendTransaction",
      params: [{ from: user, to: usdc, data: approve }],
    }),
  });
  const block = await jsonRpc<{ timestamp: string }>(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "eth_getBlockByNumber",
    params: ["latest", false],
  });
  const now = Number(block.timestamp);
  await jsonRpc(url, { jsonrpc: "2.0", id: 0, method: "evm_setAutomine", params: [false] });
  try {
    for (let done = 0; done < o.count; done += o.perBlock) {
      const batch = [];
      for (let i = done; i < Math.min(done + o.perBlock, o.count); i++) {
        const call = encodeFunctionData({
          abi: spokeAbi,
          functionName: "deposit",
          args: [
            addressToBytes32(user),
            addressToBytes32(user),
            addressToBytes32(usdc),
            addressToBytes32(outUsdc),
            1_000_000n + BigInt(i % 1000),
            990_000n,
            BigInt(o.destination),
            addressToBytes32(zeroAddress),
            now,
            now + 20_000,
            0,
            "0x",
          ],
        });
        const tag = o.integratorId?.(i);
        const data = tag ? `${call}1dc0de${tag.slice(2)}` : call;
        batch.push({
          jsonrpc: "2.0",
          id: i,
          method: "eth_sendTransaction",
          params: [{ from: user, to: chain.contracts.spokePool, data, gas: "0x30000" }],
        });
      }
      await jsonRpc(url, batch);
      await jsonRpc(url, { jsonrpc: "2.0", id: 0, method: "evm_mine", params: [] });
      o.onBlock?.(Math.min(done + o.perBlock, o.count));
    }
  } finally {
    await jsonRpc(url, { jsonrpc: "2.0", id: 0, method: "evm_setAutomine", params: [true] });
  }
}
