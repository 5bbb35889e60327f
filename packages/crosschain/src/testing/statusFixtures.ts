/**
 * Indexer ranges and settlement rows for the deposit status tests, without a chain: a deposit, its fill,
 * its slow-fill request and a refund leaf's execution go through the indexer store's `appendRange` as the
 * indexer would store them, and bundles, ledger items and refund leaves are inserted as settlement writes them.
 */
import { copyHexField, createCopyLines, type Queryable } from "@platform/kernel";
import type { Hex } from "viem";
import { DEPOSIT_COLUMNS } from "../indexer/depositRows.ts";
import type { RangeData } from "../store/indexerStore.ts";

/** A 32-byte hex of `n`. */
export const b32 = (n: bigint | number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
/** A 20-byte address of `n`. */
export const addr = (n: bigint | number) => `0x${n.toString(16).padStart(40, "0")}` as Hex;
/** bytea of a hex. */
export const bytes = (hex: string) => Buffer.from(hex.slice(2), "hex");

export interface TestDeposit {
  originChainId: number;
  destinationChainId: number;
  depositId: number;
  /** Distinct per deposit: the relay hash, the deposit tx and the depositor derive from it. */
  key: number;
  fillDeadline: number;
  /** 20-byte depositor (stored left-padded), default addr(0xd0). */
  depositor?: Hex;
  message?: Hex;
  blockNumber: bigint;
}

export const relayHashOf = (d: TestDeposit) => b32(0x7e1a000000n + BigInt(d.key));
export const depositTxOf = (d: TestDeposit) => b32(0xde90000000n + BigInt(d.key));
const padded = (a: Hex) => `0x${a.slice(2).padStart(64, "0")}` as Hex;

/** An empty range of `blocks` (numbers), with timestamps. */
export function emptyRange(...blocks: bigint[]): RangeData {
  return {
    blocks: blocks.map((n) => ({ number: n, hash: b32(0xb10c0000n + n), timestamp: 1_700_000_000 + Number(n) })),
    deposits: { columns: DEPOSIT_COLUMNS, count: 0, bytes: new Uint8Array(0) },
    fills: [],
    slowFills: [],
    speedUps: [],
    settlements: [],
  };
}

/** `range` with the deposits' COPY rows (all made on the range's chain). */
export function withDeposits(range: RangeData, deposits: TestDeposit[]): RangeData {
  const lines = createCopyLines();
  const h = copyHexField;
  for (const d of deposits) {
    const depositor = padded(d.depositor ?? addr(0xd0));
    const message = d.message ?? "0x";
    lines.push(
      `${d.originChainId}\t${d.depositId}\t${d.destinationChainId}\t${h(relayHashOf(d))}\t${h(depositor)}\t${h(b32(0xec))}\t${h(b32(0))}\t${h(b32(0xa1))}\t${h(b32(0xb2))}\t1000\t990\t1700000000\t${d.fillDeadline}\t0\t${h(message)}\t${h(b32(0x3e))}\t${h(depositTxOf(d))}\t0\t${d.key}\t${d.blockNumber}\t${1_700_000_000 + Number(d.blockNumber)}\n`,
    );
  }
  return { ...range, deposits: { columns: DEPOSIT_COLUMNS, count: deposits.length, bytes: lines.bytes() } };
}

const position = (txHash: Hex, blockNumber: bigint, logIndex = 0) => ({
  txHash,
  txIndex: 0,
  logIndex,
  blockNumber,
  blockHash: b32(0xb10c0000n + blockNumber),
});

/** A FilledRelay of `d` (fillType 2 = slow fill) in tx `txHash`. */
export function fillOf(d: TestDeposit, txHash: Hex, blockNumber: bigint, fillType = 0): RangeData["fills"][number] {
  return {
    kind: "fill",
    relayHash: relayHashOf(d),
    originChainId: BigInt(d.originChainId),
    depositId: BigInt(d.depositId),
    relayer: b32(0xfe),
    repaymentChainId: BigInt(d.destinationChainId),
    fillType,
    updatedRecipient: b32(0xec),
    updatedOutputAmount: 990n,
    callsFailed: false,
    ...position(txHash, blockNumber),
  };
}

export function slowRequestOf(d: TestDeposit, txHash: Hex, blockNumber: bigint): RangeData["slowFills"][number] {
  return { kind: "slowFillRequest", relayHash: relayHashOf(d), ...position(txHash, blockNumber) };
}

/** An ExecutedRelayerRefundRoot as the indexer stores it (uint32 ids decode to numbers, uint256 to strings). */
export function refundExecution(
  p: { rootBundleId: number; leafId: number; chainId: number; l2Token: Hex; refundAddresses: Hex[] },
  txHash: Hex,
  blockNumber: bigint,
  logIndex = 0,
): RangeData["settlements"][number] {
  return {
    kind: "settlement",
    eventName: "ExecutedRelayerRefundRoot",
    args: {
      amountToReturn: "0",
      chainId: String(p.chainId),
      refundAmounts: p.refundAddresses.map(() => "1000"),
      rootBundleId: p.rootBundleId,
      leafId: p.leafId,
      l2TokenAddress: p.l2Token,
      refundAddresses: p.refundAddresses,
      deferredRefunds: false,
      caller: addr(0xca),
    },
    ...position(txHash, blockNumber, logIndex),
  };
}

/** An executed bundle; returns its id. */
export async function insertBundle(tx: Queryable): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO crosschain.bundles (status, chain_ids, start_blocks, end_blocks, end_hashes, end_timestamps,
       pool_rebalance_root, relayer_refund_root, slow_relay_root, pool_leaf_count)
     VALUES ('executed', '{}', '{}', '{}', '{}', '{}', '\\x00', '\\x00', '\\x00', 0) RETURNING id::text`,
  );
  return (row as { id: string }).id;
}

/** The `expiredRefund` ledger item of `d` in `bundleId`, paying `payee` in `l2Token` on the origin chain. */
export async function insertExpiredRefund(tx: Queryable, bundleId: string, d: TestDeposit, l2Token: Hex, payee: Hex) {
  await tx.query(
    `INSERT INTO crosschain.bundle_items (bundle_id, kind, relay_hash, origin_chain_id, deposit_id, chain_id, l1_token,
       l2_token, payee, amount, lp_fee)
     VALUES ($1, 'expiredRefund', $2, $3, $4, $3, $5, $6, $7, 1000, 0)`,
    [bundleId, bytes(relayHashOf(d)), d.originChainId, d.depositId, bytes(addr(0x11)), bytes(l2Token), bytes(payee)],
  );
}

/** A relayer refund leaf of `bundleId` on `chainId`, relayed to the spoke as `spokeRootBundleId`. */
export async function insertRefundLeaf(
  tx: Queryable,
  p: {
    bundleId: string;
    leafId: number;
    chainId: number;
    l2Token: Hex;
    refundAddresses: Hex[];
    spokeRootBundleId: number;
  },
) {
  await tx.query(
    `INSERT INTO crosschain.bundle_refund_leaves (bundle_id, leaf_id, chain_id, l2_token, amount_to_return,
       refund_addresses, refund_amounts, proof, spoke_root_bundle_id)
     VALUES ($1, $2, $3, $4, 0, $5::text[]::bytea[], $6::numeric[], '{}', $7)`,
    [
      p.bundleId,
      p.leafId,
      p.chainId,
      bytes(p.l2Token),
      p.refundAddresses.map((a) => `\\x${a.slice(2)}`),
      p.refundAddresses.map(() => "1000"),
      p.spokeRootBundleId,
    ],
  );
}
