/**
 * Root bundles as the dataworker persists them (migration 0014): a bundle is written with its ledger items
 * and its leaves in ONE transaction, so a kill leaves either nothing or a complete bundle to propose, and
 * each execution is recorded on its leaf. Every write takes the dataworker's lease fence.
 */
import { byteaToHex, type Database, hexDigits, type Queryable } from "@platform/kernel";
import type { Address, Hex } from "viem";
import type {
  BuiltBundle,
  PoolRebalanceLeaf,
  RelayerRefundLeaf,
  RunningBalance,
  SlowFillLeaf,
  V3RelayData,
} from "../settlement/types.ts";
import { recordStatusChanges } from "./depositStatusEvents.ts";

export type BundleStatus = "built" | "proposed" | "executed" | "abandoned";

/** A bundle's block range on one chain, with its end block's hash and timestamp. */
export interface BundleRange {
  chainId: number;
  start: bigint;
  end: bigint;
  endHash: Hex;
  endTimestamp: bigint;
}

export interface StoredBundle {
  id: number;
  status: BundleStatus;
  ranges: BundleRange[];
  poolRebalanceRoot: Hex;
  relayerRefundRoot: Hex;
  slowRelayRoot: Hex;
  poolLeafCount: number;
  proposeTx: Hex | null;
  proposeBlock: bigint | null;
  challengeEnd: bigint | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoredPoolLeaf extends PoolRebalanceLeaf {
  proof: Hex[];
  execTx: Hex | null;
}

export interface StoredRefundLeaf extends RelayerRefundLeaf {
  proof: Hex[];
  spokeRootBundleId: number | null;
  execTx: Hex | null;
}

export type SlowLeafState = "pending" | "executed" | "superseded" | "expired";

export interface StoredSlowLeaf extends SlowFillLeaf {
  relayHash: Hex;
  leafIndex: number;
  proof: Hex[];
  state: SlowLeafState;
  execTx: Hex | null;
}

/** What the operator view shows of a bundle's payments. */
export interface BundleTotals {
  kind: string;
  chainId: number;
  l2Token: Address;
  count: number;
  amount: bigint;
  lpFees: bigint;
}

/** Lease fence: throws inside the transaction when the writer no longer holds the dataworker's lease. */
export type Fence = (tx: Queryable) => Promise<void>;

const hex = (b: Buffer | null): Hex | null => (b ? (byteaToHex(b) as Hex) : null);
const bytea = (h: string) => Buffer.from(hexDigits(h), "hex");
const big = (xs: readonly bigint[]) => xs.map((x) => x.toString());

interface BundleRow {
  id: string;
  status: BundleStatus;
  chain_ids: string[];
  start_blocks: string[];
  end_blocks: string[];
  end_hashes: Buffer[];
  end_timestamps: string[];
  pool_rebalance_root: Buffer;
  relayer_refund_root: Buffer;
  slow_relay_root: Buffer;
  pool_leaf_count: number;
  propose_tx: Buffer | null;
  propose_block: string | null;
  challenge_end: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

function toBundle(r: BundleRow): StoredBundle {
  return {
    id: Number(r.id),
    status: r.status,
    ranges: r.chain_ids.map((chainId, i) => ({
      chainId: Number(chainId),
      start: BigInt(r.start_blocks[i] as string),
      end: BigInt(r.end_blocks[i] as string),
      endHash: hex(r.end_hashes[i] as Buffer) as Hex,
      endTimestamp: BigInt(r.end_timestamps[i] as string),
    })),
    poolRebalanceRoot: hex(r.pool_rebalance_root) as Hex,
    relayerRefundRoot: hex(r.relayer_refund_root) as Hex,
    slowRelayRoot: hex(r.slow_relay_root) as Hex,
    poolLeafCount: r.pool_leaf_count,
    proposeTx: hex(r.propose_tx),
    proposeBlock: r.propose_block === null ? null : BigInt(r.propose_block),
    challengeEnd: r.challenge_end === null ? null : BigInt(r.challenge_end),
    error: r.error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function relayDataJson(d: V3RelayData): Record<string, string | number> {
  return {
    ...d,
    inputAmount: d.inputAmount.toString(),
    outputAmount: d.outputAmount.toString(),
    originChainId: d.originChainId.toString(),
    depositId: d.depositId.toString(),
  };
}

function relayDataOf(j: Record<string, string | number>): V3RelayData {
  return {
    depositor: j.depositor as Hex,
    recipient: j.recipient as Hex,
    exclusiveRelayer: j.exclusiveRelayer as Hex,
    inputToken: j.inputToken as Hex,
    outputToken: j.outputToken as Hex,
    inputAmount: BigInt(j.inputAmount as string),
    outputAmount: BigInt(j.outputAmount as string),
    originChainId: BigInt(j.originChainId as string),
    depositId: BigInt(j.depositId as string),
    fillDeadline: Number(j.fillDeadline),
    exclusivityDeadline: Number(j.exclusivityDeadline),
    message: j.message as Hex,
  };
}

export function createBundlesRepository(db: Database) {
  return {
    /** The bundle in flight (built or proposed), if any. */
    async openBundle(): Promise<StoredBundle | undefined> {
      const [row] = await db.query<BundleRow>(
        "SELECT * FROM crosschain.bundles WHERE status IN ('built', 'proposed') ORDER BY id DESC LIMIT 1",
      );
      return row ? toBundle(row) : undefined;
    },

    /** The last bundle whose proposal landed (its ranges are where the next one starts). */
    async lastProposed(): Promise<StoredBundle | undefined> {
      const [row] = await db.query<BundleRow>(
        "SELECT * FROM crosschain.bundles WHERE status IN ('proposed', 'executed') ORDER BY id DESC LIMIT 1",
      );
      return row ? toBundle(row) : undefined;
    },

    async get(id: number): Promise<StoredBundle | undefined> {
      const [row] = await db.query<BundleRow>("SELECT * FROM crosschain.bundles WHERE id = $1", [id]);
      return row ? toBundle(row) : undefined;
    },

    async list(limit: number, before?: number): Promise<StoredBundle[]> {
      const rows = await db.query<BundleRow>(
        `SELECT * FROM crosschain.bundles WHERE ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $1`,
        [limit, before ?? null],
      );
      return rows.map(toBundle);
    },

    /**
     * The running balances the HubPool carries after the last executed bundle, per (chain, L1 token): the
     * last pool leaf that named the pair.
     */
    async runningBalances(): Promise<RunningBalance[]> {
      const rows = await db.query<{ chain_id: string; l1_token: Buffer; amount: string }>(
        `SELECT DISTINCT ON (l.chain_id, t.token) l.chain_id, t.token AS l1_token, l.running_balances[t.i] AS amount
         FROM crosschain.bundle_pool_leaves l
         JOIN crosschain.bundles b ON b.id = l.bundle_id AND b.status = 'executed'
         CROSS JOIN LATERAL unnest(l.l1_tokens) WITH ORDINALITY AS t(token, i)
         ORDER BY l.chain_id, t.token, l.bundle_id DESC`,
      );
      return rows.map((r) => ({
        chainId: Number(r.chain_id),
        l1Token: hex(r.l1_token) as Address,
        amount: BigInt(r.amount),
      }));
    },

    /** Each indexed chain's first block and next block to index (a bundle reads no further than the tip). */
    async indexerCheckpoints(): Promise<{ chainId: number; startBlock: bigint; nextBlock: bigint }[]> {
      const rows = await db.query<{ chain_id: string; start_block: string; next_block: string }>(
        "SELECT chain_id, start_block, next_block FROM crosschain.chains ORDER BY chain_id",
      );
      return rows.map((r) => ({
        chainId: Number(r.chain_id),
        startBlock: BigInt(r.start_block),
        nextBlock: BigInt(r.next_block),
      }));
    },

    /** Writes a built bundle: the bundle, its ledger items (the caller's `book`) and its leaves, at once. */
    async insertBuilt(
      fence: Fence,
      ranges: BundleRange[],
      built: BuiltBundle,
      book: (tx: Queryable, bundleId: number) => Promise<void>,
      slowRelayHashes: Hex[],
    ): Promise<number> {
      return db.transaction(async (tx) => {
        await fence(tx);
        const [row] = await tx.query<{ id: string }>(
          `INSERT INTO crosschain.bundles (status, chain_ids, start_blocks, end_blocks, end_hashes, end_timestamps,
             pool_rebalance_root, relayer_refund_root, slow_relay_root, pool_leaf_count)
           VALUES ('built', $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
          [
            ranges.map((r) => r.chainId),
            big(ranges.map((r) => r.start)),
            big(ranges.map((r) => r.end)),
            ranges.map((r) => bytea(r.endHash)),
            big(ranges.map((r) => r.endTimestamp)),
            bytea(built.poolRebalance.root),
            bytea(built.relayerRefund.root),
            bytea(built.slowRelay.root),
            built.poolRebalance.leaves.length,
          ],
        );
        const id = Number(row?.id);
        await book(tx, id);
        for (const [i, l] of built.poolRebalance.leaves.entries()) {
          await tx.query(
            `INSERT INTO crosschain.bundle_pool_leaves (bundle_id, leaf_id, chain_id, group_index, l1_tokens,
               bundle_lp_fees, net_send_amounts, running_balances, proof)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              id,
              l.leafId,
              l.chainId.toString(),
              Number(l.groupIndex),
              l.l1Tokens.map(bytea),
              big(l.bundleLpFees),
              big(l.netSendAmounts),
              big(l.runningBalances),
              (built.poolRebalance.proofs[i] ?? []).map(bytea),
            ],
          );
        }
        for (const [i, l] of built.relayerRefund.leaves.entries()) {
          await tx.query(
            `INSERT INTO crosschain.bundle_refund_leaves (bundle_id, leaf_id, chain_id, l2_token, amount_to_return,
               refund_addresses, refund_amounts, proof)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [
              id,
              l.leafId,
              l.chainId.toString(),
              bytea(l.l2TokenAddress),
              l.amountToReturn.toString(),
              l.refundAddresses.map(bytea),
              big(l.refundAmounts),
              (built.relayerRefund.proofs[i] ?? []).map(bytea),
            ],
          );
        }
        for (const [i, l] of built.slowRelay.leaves.entries()) {
          await tx.query(
            `INSERT INTO crosschain.bundle_slow_leaves (bundle_id, relay_hash, chain_id, leaf_index, relay_data,
               updated_output_amount, proof)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [
              id,
              bytea(slowRelayHashes[i] as Hex),
              l.chainId.toString(),
              i,
              JSON.stringify(relayDataJson(l.relayData)),
              l.updatedOutputAmount.toString(),
              (built.slowRelay.proofs[i] ?? []).map(bytea),
            ],
          );
        }
        // The deposits this bundle refunds are expired now, whether or not the expiry sweep noticed yet (last:
        // it locks the outbox).
        await recordStatusChanges(tx, { bundleId: id }, "expiry");
        return id;
      });
    },

    async poolLeaves(bundleId: number): Promise<StoredPoolLeaf[]> {
      const rows = await db.query<{
        leaf_id: number;
        chain_id: string;
        group_index: number;
        l1_tokens: Buffer[];
        bundle_lp_fees: string[];
        net_send_amounts: string[];
        running_balances: string[];
        proof: Buffer[];
        exec_tx: Buffer | null;
      }>(
        // numeric[] as text[]: node-postgres parses numeric[] with parseFloat, which rounds amounts above 2^53
        // (an 18-decimal token's) and breaks the leaf's proof; PGlite returns strings either way.
        `SELECT leaf_id, chain_id, group_index, l1_tokens, bundle_lp_fees::text[] AS bundle_lp_fees,
           net_send_amounts::text[] AS net_send_amounts, running_balances::text[] AS running_balances, proof, exec_tx
         FROM crosschain.bundle_pool_leaves WHERE bundle_id = $1 ORDER BY leaf_id`,
        [bundleId],
      );
      return rows.map((r) => ({
        chainId: BigInt(r.chain_id),
        bundleLpFees: r.bundle_lp_fees.map(BigInt),
        netSendAmounts: r.net_send_amounts.map(BigInt),
        runningBalances: r.running_balances.map(BigInt),
        groupIndex: BigInt(r.group_index),
        leafId: r.leaf_id,
        l1Tokens: r.l1_tokens.map((t) => hex(t) as Address),
        proof: r.proof.map((p) => hex(p) as Hex),
        execTx: hex(r.exec_tx),
      }));
    },

    async refundLeaves(bundleId: number): Promise<StoredRefundLeaf[]> {
      const rows = await db.query<{
        leaf_id: number;
        chain_id: string;
        l2_token: Buffer;
        amount_to_return: string;
        refund_addresses: Buffer[];
        refund_amounts: string[];
        proof: Buffer[];
        spoke_root_bundle_id: string | null;
        exec_tx: Buffer | null;
      }>(
        `SELECT leaf_id, chain_id, l2_token, amount_to_return, refund_addresses, refund_amounts::text[] AS refund_amounts,
           proof, spoke_root_bundle_id, exec_tx
         FROM crosschain.bundle_refund_leaves WHERE bundle_id = $1 ORDER BY leaf_id`,
        [bundleId],
      );
      return rows.map((r) => ({
        amountToReturn: BigInt(r.amount_to_return),
        chainId: BigInt(r.chain_id),
        refundAmounts: r.refund_amounts.map(BigInt),
        leafId: r.leaf_id,
        l2TokenAddress: hex(r.l2_token) as Address,
        refundAddresses: r.refund_addresses.map((a) => hex(a) as Address),
        proof: r.proof.map((p) => hex(p) as Hex),
        spokeRootBundleId: r.spoke_root_bundle_id === null ? null : Number(r.spoke_root_bundle_id),
        execTx: hex(r.exec_tx),
      }));
    },

    async slowLeaves(bundleId: number): Promise<StoredSlowLeaf[]> {
      const rows = await db.query<{
        relay_hash: Buffer;
        chain_id: string;
        leaf_index: number;
        relay_data: Record<string, string | number>;
        updated_output_amount: string;
        proof: Buffer[];
        exec_state: SlowLeafState;
        exec_tx: Buffer | null;
      }>("SELECT * FROM crosschain.bundle_slow_leaves WHERE bundle_id = $1 ORDER BY leaf_index", [bundleId]);
      return rows.map((r) => ({
        relayHash: hex(r.relay_hash) as Hex,
        chainId: BigInt(r.chain_id),
        leafIndex: r.leaf_index,
        relayData: relayDataOf(r.relay_data),
        updatedOutputAmount: BigInt(r.updated_output_amount),
        proof: r.proof.map((p) => hex(p) as Hex),
        state: r.exec_state,
        execTx: hex(r.exec_tx),
      }));
    },

    async markProposed(fence: Fence, id: number, p: { tx: Hex | null; block: bigint; challengeEnd: bigint }) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query(
          `UPDATE crosschain.bundles SET status = 'proposed', propose_tx = $2, propose_block = $3, challenge_end = $4,
             error = NULL, updated_at = now() WHERE id = $1 AND status = 'built'`,
          [id, p.tx ? bytea(p.tx) : null, p.block.toString(), p.challengeEnd.toString()],
        );
      });
    },

    /** Gives a built (never proposed) bundle up: its items return to the ledger's pool for the next build. */
    async abandon(fence: Fence, id: number, reason: string) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query("DELETE FROM crosschain.bundle_items WHERE bundle_id = $1", [id]);
        await tx.query(
          "UPDATE crosschain.bundles SET status = 'abandoned', error = $2, updated_at = now() WHERE id = $1 AND status = 'built'",
          [id, reason],
        );
      });
    },

    async markExecuted(fence: Fence, id: number) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query(
          "UPDATE crosschain.bundles SET status = 'executed', error = NULL, updated_at = now() WHERE id = $1",
          [id],
        );
      });
    },

    async setError(id: number, error: string | null) {
      await db.query("UPDATE crosschain.bundles SET error = $2, updated_at = now() WHERE id = $1", [id, error]);
    },

    async setPoolLeafExecuted(fence: Fence, bundleId: number, leafId: number, txHash: Hex) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query("UPDATE crosschain.bundle_pool_leaves SET exec_tx = $3 WHERE bundle_id = $1 AND leaf_id = $2", [
          bundleId,
          leafId,
          bytea(txHash),
        ]);
      });
    },

    /**
     * The id `chainId`'s spoke gave these roots, from its indexed `RelayedRootBundle` (where a canonical bridge,
     * not the dataworker, relays them); the newest if they were relayed more than once.
     */
    async relayedRootBundleId(
      chainId: number,
      relayerRefundRoot: Hex,
      slowRelayRoot: Hex,
    ): Promise<number | undefined> {
      const [row] = await db.query<{ id: string }>(
        `SELECT args->>'rootBundleId' AS id FROM crosschain.settlement_events
         WHERE chain_id = $1 AND event_name = 'RelayedRootBundle'
           AND lower(args->>'relayerRefundRoot') = $2 AND lower(args->>'slowRelayRoot') = $3
         ORDER BY block_number DESC, log_index DESC LIMIT 1`,
        [chainId, relayerRefundRoot.toLowerCase(), slowRelayRoot.toLowerCase()],
      );
      return row ? Number(row.id) : undefined;
    },

    /** Records the id a chain's spoke gave the relayed roots, on every refund leaf of that chain. */
    async setSpokeRootBundleId(fence: Fence, bundleId: number, chainId: number, spokeRootBundleId: number) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query(
          "UPDATE crosschain.bundle_refund_leaves SET spoke_root_bundle_id = $3 WHERE bundle_id = $1 AND chain_id = $2",
          [bundleId, chainId, spokeRootBundleId],
        );
        // Were a leaf's execution indexed already, its deposits are refunded from now on (last: it locks the outbox).
        await recordStatusChanges(tx, { bundleId }, "settlement");
      });
    },

    async setRefundLeafExecuted(fence: Fence, bundleId: number, leafId: number, txHash: Hex) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query(
          "UPDATE crosschain.bundle_refund_leaves SET exec_tx = $3 WHERE bundle_id = $1 AND leaf_id = $2",
          [bundleId, leafId, bytea(txHash)],
        );
      });
    },

    async setSlowLeafState(fence: Fence, bundleId: number, relayHash: Hex, state: SlowLeafState, txHash?: Hex) {
      await db.transaction(async (tx) => {
        await fence(tx);
        await tx.query(
          `UPDATE crosschain.bundle_slow_leaves SET exec_state = $3, exec_tx = coalesce($4, exec_tx)
           WHERE bundle_id = $1 AND relay_hash = $2`,
          [bundleId, bytea(relayHash), state, txHash ? bytea(txHash) : null],
        );
      });
    },

    /** What a bundle booked, per kind, chain and token (the operator view). */
    async totals(bundleId: number): Promise<BundleTotals[]> {
      const rows = await db.query<{
        kind: string;
        chain_id: string;
        l2_token: Buffer;
        count: string;
        amount: string;
        lp_fees: string;
      }>(
        `SELECT kind, chain_id, l2_token, count(*) AS count, sum(amount) AS amount, sum(lp_fee) AS lp_fees
         FROM crosschain.bundle_items WHERE bundle_id = $1 GROUP BY kind, chain_id, l2_token
         ORDER BY kind, chain_id, l2_token`,
        [bundleId],
      );
      return rows.map((r) => ({
        kind: r.kind,
        chainId: Number(r.chain_id),
        l2Token: hex(r.l2_token) as Address,
        count: Number(r.count),
        amount: BigInt(r.amount),
        lpFees: BigInt(r.lp_fees),
      }));
    },
  };
}

export type BundlesRepository = ReturnType<typeof createBundlesRepository>;
