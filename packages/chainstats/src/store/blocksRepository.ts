/**
 * SQL for `chainstats`: blocks, daily rollups and per-chain checkpoints. Every write that moves a
 * checkpoint happens in one transaction with the rows it covers, so a crash at any instant leaves
 * the tables and the checkpoint consistent: nothing lost, nothing counted twice.
 */
import type { WriteFence } from "@platform/chains";
import { byteaToHex, type Database, hexDigits, type Queryable } from "@platform/kernel";
import { type DailyAction, recordColumn } from "../domain/dailyStats.ts";
import { type BlockHeader, type DailyDelta, dailyDeltas } from "../domain/rollup.ts";

export interface ChainCheckpoint {
  chain_id: string;
  genesis_hash: Buffer;
  next_block: string;
  start_block: string;
  updated_at: Date;
}

async function insertBlocks(tx: Queryable, chainId: number, blocks: readonly BlockHeader[]) {
  await tx.query(
    `INSERT INTO chainstats.blocks (chain_id, number, hash, parent_hash, timestamp, gas_limit, gas_used,
                                    base_fee_per_gas, size, tx_count, miner, block_time)
     SELECT $1, n, decode(h, 'hex'), decode(p, 'hex'), ts, gl, gu, bf, sz, tc, decode(m, 'hex'), bt
     FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::numeric[], $7::numeric[], $8::numeric[],
                 $9::bigint[], $10::int[], $11::text[], $12::bigint[]) AS b(n, h, p, ts, gl, gu, bf, sz, tc, m, bt)`,
    [
      chainId,
      blocks.map((b) => b.number.toString()),
      blocks.map((b) => hexDigits(b.hash)),
      blocks.map((b) => hexDigits(b.parentHash)),
      blocks.map((b) => b.timestamp),
      blocks.map((b) => b.gasLimit.toString()),
      blocks.map((b) => b.gasUsed.toString()),
      blocks.map((b) => (b.baseFeePerGas === null ? null : b.baseFeePerGas.toString())),
      blocks.map((b) => b.size.toString()),
      blocks.map((b) => b.txCount),
      blocks.map((b) => hexDigits(b.miner)),
      blocks.map((b) => b.blockTime),
    ],
  );
}

async function addDaily(tx: Queryable, chainId: number, deltas: readonly DailyDelta[]) {
  await tx.query(
    `INSERT INTO chainstats.daily AS d (chain_id, day, utc_date, unix_ts, block_count, gas_limit_sum, gas_used_sum,
                                        size_sum, tx_count, block_time_sum, block_time_count)
     SELECT $1, day, to_char(day, 'YYYY-MM-DD'), (day - DATE '1970-01-01') * 86400, bc, gl, gu, sz, tc, bts, btc
     FROM unnest($2::date[], $3::bigint[], $4::numeric[], $5::numeric[], $6::numeric[], $7::bigint[], $8::numeric[],
                 $9::bigint[]) AS x(day, bc, gl, gu, sz, tc, bts, btc)
     ON CONFLICT (chain_id, day) DO UPDATE SET
       block_count = d.block_count + EXCLUDED.block_count,
       gas_limit_sum = d.gas_limit_sum + EXCLUDED.gas_limit_sum,
       gas_used_sum = d.gas_used_sum + EXCLUDED.gas_used_sum,
       size_sum = d.size_sum + EXCLUDED.size_sum,
       tx_count = d.tx_count + EXCLUDED.tx_count,
       block_time_sum = d.block_time_sum + EXCLUDED.block_time_sum,
       block_time_count = d.block_time_count + EXCLUDED.block_time_count`,
    [
      chainId,
      deltas.map((d) => d.day),
      deltas.map((d) => d.blockCount.toString()),
      deltas.map((d) => d.gasLimitSum.toString()),
      deltas.map((d) => d.gasUsedSum.toString()),
      deltas.map((d) => d.sizeSum.toString()),
      deltas.map((d) => d.txCount.toString()),
      deltas.map((d) => d.blockTimeSum.toString()),
      deltas.map((d) => d.blockTimeCount.toString()),
    ],
  );
}

/**
 * The statistics query: concatenates the stored records of at most one row per day into a JSON array.
 * Exported so the benchmark baseline runs exactly it.
 */
export const dailyRecordsSql = (action: DailyAction, sort: "asc" | "desc") => {
  const column = recordColumn(action);
  return `SELECT count(${column})::int AS n, '[' || coalesce(string_agg(${column}, ',' ORDER BY day ${sort === "desc" ? "DESC" : "ASC"}), '') || ']' AS json
   FROM chainstats.daily WHERE chain_id = $1 AND day BETWEEN $2 AND $3`;
};

export function createBlocksRepository(db: Database) {
  return {
    async checkpoint(chainId: number): Promise<ChainCheckpoint | undefined> {
      const [row] = await db.query<ChainCheckpoint>("SELECT * FROM chainstats.chains WHERE chain_id = $1", [chainId]);
      return row;
    },

    async checkpoints(): Promise<ChainCheckpoint[]> {
      return db.query<ChainCheckpoint>("SELECT * FROM chainstats.chains ORDER BY chain_id");
    },

    /**
     * Forgets everything about a chain and starts it at `startBlock` (first run, reset devnet, deep reorg).
     * `fence` (here and in every write that moves the checkpoint): the indexer's lease, asserted first.
     */
    async startOver(chainId: number, genesisHash: string, startBlock: bigint, fence?: WriteFence): Promise<void> {
      await db.transaction(async (tx) => {
        await fence?.(tx);
        await tx.query("DELETE FROM chainstats.blocks WHERE chain_id = $1", [chainId]);
        await tx.query("DELETE FROM chainstats.daily WHERE chain_id = $1", [chainId]);
        await tx.query(
          `INSERT INTO chainstats.chains (chain_id, genesis_hash, next_block, start_block) VALUES ($1, decode($2, 'hex'), $3, $3)
           ON CONFLICT (chain_id) DO UPDATE SET genesis_hash = EXCLUDED.genesis_hash, next_block = EXCLUDED.next_block,
             start_block = EXCLUDED.start_block, updated_at = now()`,
          [chainId, hexDigits(genesisHash), startBlock.toString()],
        );
      });
    },

    /** The stored block `number` (hash and timestamp), if any. */
    async storedBlock(chainId: number, number: bigint): Promise<{ hash: string; timestamp: number } | undefined> {
      const [row] = await db.query<{ hash: Buffer; timestamp: string }>(
        "SELECT hash, timestamp FROM chainstats.blocks WHERE chain_id = $1 AND number = $2",
        [chainId, number.toString()],
      );
      return row ? { hash: byteaToHex(row.hash), timestamp: Number(row.timestamp) } : undefined;
    },

    /**
     * Stores a linked run of blocks starting at `expectedNext`, adds them to the daily rollups and moves
     * the checkpoint, in one transaction. Returns false (and writes nothing) when the checkpoint is no
     * longer `expectedNext`, i.e. another writer got there first.
     */
    async append(
      chainId: number,
      expectedNext: bigint,
      blocks: readonly BlockHeader[],
      fence?: WriteFence,
    ): Promise<boolean> {
      if (blocks.length === 0) return true;
      return db.transaction(async (tx) => {
        await fence?.(tx);
        const [row] = await tx.query<{ next_block: string }>(
          "SELECT next_block FROM chainstats.chains WHERE chain_id = $1 FOR UPDATE",
          [chainId],
        );
        if (!row || BigInt(row.next_block) !== expectedNext) return false;
        await insertBlocks(tx, chainId, blocks);
        await addDaily(tx, chainId, dailyDeltas(blocks));
        const next = (blocks[blocks.length - 1] as BlockHeader).number + 1n;
        await tx.query("UPDATE chainstats.chains SET next_block = $2, updated_at = now() WHERE chain_id = $1", [
          chainId,
          next.toString(),
        ]);
        return true;
      });
    },

    /** Removes every block above `ancestor`, subtracts them from the rollups, and rewinds the checkpoint. */
    async rollbackTo(chainId: number, ancestor: bigint, fence?: WriteFence): Promise<number> {
      return db.transaction(async (tx) => {
        await fence?.(tx);
        const removed = await tx.query<{ n: string }>(
          `WITH gone AS (
             DELETE FROM chainstats.blocks WHERE chain_id = $1 AND number > $2
             RETURNING timestamp, gas_limit, gas_used, size, tx_count, block_time
           ), per_day AS (
             SELECT (to_timestamp(timestamp) AT TIME ZONE 'UTC')::date AS day, count(*) AS bc,
                    sum(gas_limit) AS gl, sum(gas_used) AS gu, sum(size) AS sz, sum(tx_count) AS tc,
                    coalesce(sum(block_time), 0) AS bts, count(block_time) AS btc
             FROM gone GROUP BY 1
           ), updated AS (
             UPDATE chainstats.daily d SET block_count = d.block_count - p.bc, gas_limit_sum = d.gas_limit_sum - p.gl,
               gas_used_sum = d.gas_used_sum - p.gu, size_sum = d.size_sum - p.sz, tx_count = d.tx_count - p.tc,
               block_time_sum = d.block_time_sum - p.bts, block_time_count = d.block_time_count - p.btc
             FROM per_day p WHERE d.chain_id = $1 AND d.day = p.day
             RETURNING p.bc
           )
           SELECT coalesce(sum(bc), 0) AS n FROM updated`,
          [chainId, ancestor.toString()],
        );
        await tx.query("DELETE FROM chainstats.daily WHERE chain_id = $1 AND block_count = 0", [chainId]);
        await tx.query("UPDATE chainstats.chains SET next_block = $2, updated_at = now() WHERE chain_id = $1", [
          chainId,
          (ancestor + 1n).toString(),
        ]);
        return Number(removed[0]?.n ?? 0);
      });
    },

    /** The action's records for days `from..to` as a JSON array text, and how many there are. */
    async dailyRecords(
      chainId: number,
      action: DailyAction,
      from: string,
      to: string,
      sort: "asc" | "desc",
    ): Promise<{ count: number; json: string }> {
      const [row] = await db.query<{ n: number; json: string }>(dailyRecordsSql(action, sort), [chainId, from, to]);
      return { count: row?.n ?? 0, json: row?.json ?? "[]" };
    },
  };
}

export type BlocksRepository = ReturnType<typeof createBlocksRepository>;
