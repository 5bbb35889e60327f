/**
 * Test support for the relayer: real deposits on the devnet fixture, the `crosschain.deposits` row the
 * indexer would write for them (`insertDepositFromLog`), and on-chain checks of fills.
 */
import { loadArtifact, manifestToken } from "@platform/chains";
import type { DevnetFixture } from "@platform/chains/testing";
import type { ChainEndpoint, Database, Queryable } from "@platform/kernel";
import {
  type Address,
  decodeEventLog,
  erc20Abi,
  type Hex,
  type Log,
  maxUint256,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { type SpokeChain, spokeChains } from "../deployments.ts";
import { addressToBytes32, internalRelayHash, messageHash, type RelayData, relayHash } from "../domain/relayHash.ts";

export const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;

/** The fixture's chains as the relayer gets them in production. */
export function fixtureChains(f: DevnetFixture): SpokeChain[] {
  return spokeChains(
    f.manifest.chains.map(
      (c): ChainEndpoint => ({
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        contracts: { ...c.contracts },
        tokens: c.tokens,
        wrappedNativeToken: c.wrappedNativeToken,
      }),
    ),
  );
}

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
}

export interface MadeDeposit {
  log: Log;
  blockTimestamp: number;
  relayData: RelayData;
  destinationChainId: number;
  /** On-chain relay hash (fillStatuses key). */
  relayHash: Hex;
  /** The indexer's relay hash. */
  internalRelayHash: Hex;
}

/** A real `deposit()` on the origin chain from a demo user; returns its FundsDeposited log. */
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
      "0x",
    ],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("deposit reverted");
  const [log] = parseEventLogs({ abi: spokeAbi, logs: receipt.logs, eventName: "FundsDeposited" });
  if (!log) throw new Error("no FundsDeposited log");
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  const decoded = decodeDeposit(o.origin, log);
  return {
    log,
    blockTimestamp: Number(block.timestamp),
    relayData: decoded.relayData,
    destinationChainId: decoded.destinationChainId,
    relayHash: relayHash(decoded.relayData, decoded.destinationChainId),
    internalRelayHash: decoded.internalRelayHash,
  };
}

interface FundsDepositedArgs {
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

function decodeDeposit(originChainId: number, log: Log) {
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

const buf = (h: string) => Buffer.from(h.replace(/^0x/, ""), "hex");

/** Inserts the `crosschain.deposits` row of a FundsDeposited log, as the indexer does in production. */
export async function insertDepositFromLog(
  db: Queryable,
  originChainId: number,
  log: Log,
  blockTimestamp: number,
): Promise<void> {
  const { a, relayData, destinationChainId, internalRelayHash: h } = decodeDeposit(originChainId, log);
  await db.query(
    `INSERT INTO crosschain.deposits (origin_chain_id, deposit_id, destination_chain_id, relay_hash, depositor, recipient,
       exclusive_relayer, input_token, output_token, input_amount, output_amount, quote_timestamp, fill_deadline,
       exclusivity_deadline, message, message_hash, integrator_id, tx_hash, tx_index, log_index, block_number,
       block_timestamp)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, NULL, $17, $18, $19, $20, $21)`,
    [
      originChainId,
      relayData.depositId.toString(),
      destinationChainId,
      buf(h),
      buf(a.depositor),
      buf(a.recipient),
      buf(a.exclusiveRelayer),
      buf(a.inputToken),
      buf(a.outputToken),
      a.inputAmount.toString(),
      a.outputAmount.toString(),
      a.quoteTimestamp,
      a.fillDeadline,
      a.exclusivityDeadline,
      buf(a.message),
      buf(messageHash(a.message)),
      buf(log.transactionHash as Hex),
      Number(log.transactionIndex),
      Number(log.logIndex),
      (log.blockNumber as bigint).toString(),
      blockTimestamp,
    ],
  );
}

/** Deposits and inserts its row: what the indexer makes visible to the relayer. */
export async function depositAndIndex(f: DevnetFixture, db: Database, o: DepositOptions): Promise<MadeDeposit> {
  const d = await makeDeposit(f, o);
  await insertDepositFromLog(db, o.origin, d.log, d.blockTimestamp);
  return d;
}

export async function fillStatusOf(f: DevnetFixture, chainId: number, relayHashValue: Hex): Promise<number> {
  const status = await f.publicClient(chainId).readContract({
    address: f.chain(chainId).contracts.spokePool,
    abi: spokeAbi,
    functionName: "fillStatuses",
    args: [relayHashValue],
  });
  return Number(status);
}

/** Every FilledRelay of a deposit on the destination chain since block 0. */
export async function filledRelayLogs(f: DevnetFixture, d: MadeDeposit) {
  const logs = await f.publicClient(d.destinationChainId).getContractEvents({
    address: f.chain(d.destinationChainId).contracts.spokePool,
    abi: spokeAbi,
    eventName: "FilledRelay",
    args: { originChainId: d.relayData.originChainId, depositId: d.relayData.depositId },
    fromBlock: 0n,
  });
  return logs as unknown as { transactionHash: Hex; args: { relayer: Hex; repaymentChainId: bigint } }[];
}

export async function tokenBalance(f: DevnetFixture, chainId: number, symbol: string, who: Address): Promise<bigint> {
  return f.publicClient(chainId).readContract({
    address: manifestToken(f.chain(chainId), symbol).address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [who],
  });
}

export interface IntentRowView {
  state: string;
  nonce: string | null;
  tx_hash: Buffer | null;
  attempts: number;
  last_error: string | null;
}

export async function intentOf(db: Queryable, d: MadeDeposit): Promise<IntentRowView | undefined> {
  const [row] = await db.query<IntentRowView>(
    "SELECT state, nonce, tx_hash, attempts, last_error FROM crosschain.relayer_fills WHERE relay_hash = $1",
    [buf(d.internalRelayHash)],
  );
  return row;
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Raw JSON-RPC on a devnet chain (anvil's evm_* methods). */
export async function rpc<T = unknown>(f: DevnetFixture, chainId: number, method: string, params: unknown[] = []) {
  return (await f.publicClient(chainId).request({ method: method as never, params: params as never })) as T;
}

/** Moves a chain's clock forward and mines a block, so its latest timestamp reflects it. */
export async function advanceTime(f: DevnetFixture, chainId: number, seconds: number): Promise<void> {
  await rpc(f, chainId, "evm_increaseTime", [seconds]);
  await rpc(f, chainId, "evm_mine");
}

/**
 * The depositor (demo user `user`) signs new terms for `d` (EIP-712 `UpdateDepositDetails`, domain
 * ACROSS-V2 / 1.0.0 / origin chain id, as SpokePool verifies them) and calls `speedUpDeposit`; the
 * RequestedSpeedUpDeposit row is written as the indexer would. Reverts if the signature were wrong.
 */
export async function speedUpAndIndex(
  f: DevnetFixture,
  db: Queryable,
  d: MadeDeposit,
  o: { user?: number; updatedOutputAmount: bigint; updatedRecipient: Address },
): Promise<Hex> {
  const user = f.accounts.users[o.user ?? 0];
  if (!user) throw new Error("no such demo user");
  const originChainId = Number(d.relayData.originChainId);
  const wallet = f.walletClient(originChainId, user);
  const updatedRecipient = addressToBytes32(o.updatedRecipient);
  const signature = await wallet.signTypedData({
    account: wallet.account as never,
    domain: { name: "ACROSS-V2", version: "1.0.0", chainId: originChainId },
    types: {
      UpdateDepositDetails: [
        { name: "depositId", type: "uint256" },
        { name: "originChainId", type: "uint256" },
        { name: "updatedOutputAmount", type: "uint256" },
        { name: "updatedRecipient", type: "bytes32" },
        { name: "updatedMessage", type: "bytes" },
      ],
    },
    primaryType: "UpdateDepositDetails",
    message: {
      depositId: d.relayData.depositId,
      originChainId: BigInt(originChainId),
      updatedOutputAmount: o.updatedOutputAmount,
      updatedRecipient,
      updatedMessage: "0x",
    },
  });
  const hash = await wallet.writeContract({
    address: f.chain(originChainId).contracts.spokePool,
    abi: spokeAbi,
    functionName: "speedUpDeposit",
    args: [
      addressToBytes32(user.address),
      d.relayData.depositId,
      o.updatedOutputAmount,
      updatedRecipient,
      "0x",
      signature,
    ],
    chain: null,
  } as never);
  const receipt = await f.publicClient(originChainId).waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("speedUpDeposit reverted");
  await db.query(
    `INSERT INTO crosschain.speedups (origin_chain_id, deposit_id, depositor, updated_output_amount, updated_recipient,
       updated_message, depositor_signature, tx_hash, log_index, block_number)
     VALUES ($1, $2, $3, $4, $5, '\\x', $6, $7, 0, $8)`,
    [
      originChainId,
      d.relayData.depositId.toString(),
      Buffer.from(addressToBytes32(user.address).slice(2), "hex"),
      o.updatedOutputAmount.toString(),
      Buffer.from(updatedRecipient.slice(2), "hex"),
      Buffer.from(signature.slice(2), "hex"),
      Buffer.from(hash.slice(2), "hex"),
      receipt.blockNumber.toString(),
    ],
  );
  return signature;
}
