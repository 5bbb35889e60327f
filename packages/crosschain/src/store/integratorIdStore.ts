/**
 * Reads and writes of the integrator-id pass (see indexer/integratorIds.ts): which deposits it has not
 * read yet, and their ids saved together with its moved checkpoint in one transaction, refused when the
 * indexer rolled back in the meantime (the `rollbacks` counter changed).
 */
import type { WriteFence } from "@platform/chains";
import { byteaToHex, type Database, hexDigits } from "@platform/kernel";
import type { Hex } from "viem";
import type { OriginSwap } from "../indexer/originSwaps.ts";

/** What a deposit transaction's calldata says beyond its logs. */
export interface DepositCalldata {
  txHash: Hex;
  integratorId: string | null;
  originSwap: OriginSwap | null;
}

export interface UnreadDeposits {
  /** The pass's checkpoint when read, and the indexer's rollback counter then. */
  from: bigint;
  rollbacks: number;
  /** The checkpoint to save once these deposits are read. */
  until: bigint;
  /** The deposits' transactions, with the hash of the block the indexer stored each from. */
  transactions: { txHash: Hex; blockNumber: bigint; blockHash: Hex }[];
}

/** `fence`: the chain's indexer lease, asserted where the pass's checkpoint moves (see indexerStore.ts). */
export function createIntegratorIdStore(db: Database, fence?: WriteFence) {
  return {
    /** Up to about `limit` deposit transactions after the pass's checkpoint, whole blocks only; undefined when none. */
    async unread(chainId: number, limit: number): Promise<UnreadDeposits | undefined> {
      const [chain] = await db.query<{ from: string; next_block: string; rollbacks: number }>(
        `SELECT COALESCE(integrator_next_block, start_block) AS from, next_block, rollbacks
         FROM crosschain.chains WHERE chain_id = $1`,
        [chainId],
      );
      if (!chain || BigInt(chain.from) >= BigInt(chain.next_block)) return undefined;
      // Whole blocks only: stop before the block holding the (limit+1)-th deposit after the checkpoint
      // (or just after it, when that one block alone holds more than the limit).
      const [bound] = await db.query<{ block_number: string }>(
        `SELECT block_number FROM crosschain.deposits
         WHERE origin_chain_id = $1 AND block_number >= $2 AND block_number < $3
         ORDER BY block_number OFFSET $4 LIMIT 1`,
        [chainId, chain.from, chain.next_block, limit],
      );
      let until = bound ? BigInt(bound.block_number) : BigInt(chain.next_block);
      if (until === BigInt(chain.from)) until += 1n;
      const rows = await db.query<{ tx_hash: Buffer; block_number: string; hash: Buffer }>(
        `SELECT DISTINCT d.tx_hash, d.block_number, b.hash FROM crosschain.deposits d
           JOIN crosschain.blocks b ON b.chain_id = d.origin_chain_id AND b.number = d.block_number
         WHERE d.origin_chain_id = $1 AND d.block_number >= $2 AND d.block_number < $3`,
        [chainId, chain.from, until.toString()],
      );
      return {
        from: BigInt(chain.from),
        rollbacks: chain.rollbacks,
        until,
        transactions: rows.map((r) => ({
          txHash: byteaToHex(r.tx_hash),
          blockNumber: BigInt(r.block_number),
          blockHash: byteaToHex(r.hash),
        })),
      };
    },

    /** Saves the ids read for `read` and moves the checkpoint to `read.until`; false when the indexer rolled back since. */
    async save(chainId: number, read: UnreadDeposits, ids: DepositCalldata[]): Promise<boolean> {
      return db.transaction(async (tx) => {
        await fence?.(tx);
        const [chain] = await tx.query<{ from: string; rollbacks: number }>(
          `SELECT COALESCE(integrator_next_block, start_block) AS from, rollbacks FROM crosschain.chains
           WHERE chain_id = $1 FOR UPDATE`,
          [chainId],
        );
        if (!chain || BigInt(chain.from) !== read.from || chain.rollbacks !== read.rollbacks) return false;
        const found = ids.filter((i) => i.integratorId !== null);
        if (found.length) {
          await tx.query(
            `UPDATE crosschain.deposits d SET integrator_id = x.id
             FROM unnest($2::text[], $3::text[]) AS x(tx, id)
             WHERE d.origin_chain_id = $1 AND d.tx_hash = decode(x.tx, 'hex')`,
            [chainId, found.map((i) => hexDigits(i.txHash)), found.map((i) => i.integratorId)],
          );
        }
        const swaps = ids.filter((i) => i.originSwap !== null);
        if (swaps.length) {
          await tx.query(
            `UPDATE crosschain.deposits d SET swap_token = decode(x.token, 'hex'), swap_token_amount = x.amount
             FROM unnest($2::text[], $3::text[], $4::numeric[]) AS x(tx, token, amount)
             WHERE d.origin_chain_id = $1 AND d.tx_hash = decode(x.tx, 'hex')`,
            [
              chainId,
              swaps.map((i) => hexDigits(i.txHash)),
              // bytes32, left-padded, as every address column of the deposits.
              swaps.map((i) => `${"0".repeat(24)}${hexDigits(i.originSwap?.swapToken ?? "")}`),
              swaps.map((i) => String(i.originSwap?.swapTokenAmount)),
            ],
          );
        }
        await tx.query("UPDATE crosschain.chains SET integrator_next_block = $2 WHERE chain_id = $1", [
          chainId,
          read.until.toString(),
        ]);
        return true;
      });
    },
  };
}

export type IntegratorIdStore = ReturnType<typeof createIntegratorIdStore>;
