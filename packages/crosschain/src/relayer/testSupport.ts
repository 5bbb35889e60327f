/**
 * Test support for the relayer: real deposits on the devnet fixture, the `crosschain.deposits` row the
 * indexer would write for them (`insertDepositFromLog`), and on-chain checks of fills.
 */
import { manifestToken } from "@platform/chains";
import type { DevnetFixture } from "@platform/chains/testing";
import { byteaToHex, type Database, hexToBytea, type Queryable } from "@platform/kernel";
import { type Address, erc20Abi, type Hex, type Log } from "viem";
import { type SpokeChain, spokeChains } from "../deployments.ts";
import { addressToBytes32, messageHash } from "../domain/relayHash.ts";
import {
  contextChains,
  type DepositOptions,
  decodeDeposit,
  type MadeDeposit,
  makeDeposit,
  spokeAbi,
} from "../testing/spokePoolActions.ts";

/** The fixture's chains as the relayer gets them in production. */
export const fixtureChains = (f: DevnetFixture): SpokeChain[] => spokeChains(contextChains(f));

/** Inserts the `crosschain.deposits` row of a FundsDeposited log, as the indexer does in production. */
async function insertDepositFromLog(
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
      hexToBytea(h),
      hexToBytea(a.depositor),
      hexToBytea(a.recipient),
      hexToBytea(a.exclusiveRelayer),
      hexToBytea(a.inputToken),
      hexToBytea(a.outputToken),
      a.inputAmount.toString(),
      a.outputAmount.toString(),
      a.quoteTimestamp,
      a.fillDeadline,
      a.exclusivityDeadline,
      hexToBytea(a.message),
      hexToBytea(messageHash(a.message)),
      hexToBytea(log.transactionHash as Hex),
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

/** A deposit's row of `crosschain.relayer_fills`, its transaction hash as hex. */
export interface IntentRowView {
  state: string;
  nonce: string | null;
  tx_hash: Hex | null;
  attempts: number;
  last_error: string | null;
}

export async function intentOf(db: Queryable, d: MadeDeposit): Promise<IntentRowView | undefined> {
  const [row] = await db.query<Omit<IntentRowView, "tx_hash"> & { tx_hash: Buffer | null }>(
    "SELECT state, nonce, tx_hash, attempts, last_error FROM crosschain.relayer_fills WHERE relay_hash = $1",
    [hexToBytea(d.internalRelayHash)],
  );
  return row && { ...row, tx_hash: row.tx_hash && byteaToHex(row.tx_hash) };
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
      hexToBytea(addressToBytes32(user.address)),
      o.updatedOutputAmount.toString(),
      hexToBytea(updatedRecipient),
      hexToBytea(signature),
      hexToBytea(hash),
      receipt.blockNumber.toString(),
    ],
  );
  return signature;
}
