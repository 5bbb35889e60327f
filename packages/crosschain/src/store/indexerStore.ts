/**
 * Writes of the SpokePool indexer. A range of blocks is stored with its events, the hashes of the blocks
 * they came from (and of the range's last block) and the moved checkpoint in ONE transaction, so a kill
 * at any instant leaves the data and the checkpoint consistent; inserts are idempotent besides.
 */
import type { WriteFence } from "@platform/chains";
import { byteaToHex, copyHexField, createCopyLines, type Database, hexDigits, type Queryable } from "@platform/kernel";
import type { Hex } from "viem";
import type { DepositRowsData, RangeBlock } from "../indexer/rangeReader.ts";
import type {
  FillFact,
  LogPosition,
  SettlementFact,
  SlowFillRequestFact,
  SpeedUpFact,
} from "../indexer/spokePoolEvents.ts";
import { recordStatusChanges, statusKeysAbove } from "./depositStatusEvents.ts";

export interface IndexerCheckpoint {
  next_block: string;
  start_block: string;
  genesis_hash: Buffer;
  spoke_pool: Buffer;
}

export interface RangeData {
  blocks: RangeBlock[];
  /** The range's deposits, already COPY rows (see indexer/depositRows.ts). */
  deposits: DepositRowsData;
  fills: (FillFact & LogPosition & { callsFailed: boolean })[];
  slowFills: (SlowFillRequestFact & LogPosition)[];
  speedUps: (SpeedUpFact & LogPosition)[];
  settlements: (SettlementFact & LogPosition)[];
}

const col = <T>(rows: T[], f: (r: T) => unknown) => rows.map(f);

/**
 * Inserts many rows with COPY, which PostgreSQL parses several times faster than unnest() arrays
 * (the backfill's bottleneck, see bench/crosschain). `lines` are finished COPY text lines. A range is
 * normally new, so it is copied straight into the table; if a row is already there (SpokePools allow
 * duplicate deposit ids through `unsafeDeposit`), the range goes through a session-local staging table
 * and an INSERT … ON CONFLICT DO NOTHING instead, so duplicates are skipped rather than failing the range.
 */
async function bulkInsert(tx: Queryable, table: string, columns: readonly string[], lines: Uint8Array) {
  if (lines.length === 0) return;
  const list = columns.join(", ");
  await tx.query("SAVEPOINT bulk_insert");
  try {
    await tx.copyFrom(`COPY crosschain.${table} (${list}) FROM STDIN`, lines);
    await tx.query("RELEASE SAVEPOINT bulk_insert");
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== "23505") throw error;
    await tx.query("ROLLBACK TO SAVEPOINT bulk_insert");
  }
  const staging = `${table}_staging`;
  await tx.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${staging} (LIKE crosschain.${table} INCLUDING DEFAULTS INCLUDING IDENTITY) ON COMMIT DELETE ROWS`,
  );
  await tx.copyFrom(`COPY ${staging} (${list}) FROM STDIN`, lines);
  await tx.query(`INSERT INTO crosschain.${table} (${list}) SELECT ${list} FROM ${staging} ON CONFLICT DO NOTHING`);
}

const FILL_COLUMNS = [
  "relay_hash",
  "destination_chain_id",
  "origin_chain_id",
  "deposit_id",
  "relayer",
  "repayment_chain_id",
  "fill_type",
  "updated_recipient",
  "updated_output_amount",
  "calls_failed",
  "tx_hash",
  "log_index",
  "block_number",
  "block_timestamp",
] as const;

const b = copyHexField;

async function insertRange(tx: Queryable, chainId: number, data: RangeData) {
  const ts = new Map(data.blocks.map((b) => [b.number, b.timestamp]));
  if (data.blocks.length) {
    await tx.query(
      `INSERT INTO crosschain.blocks (chain_id, number, hash, timestamp)
       SELECT $1, n, decode(h, 'hex'), t FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS b(n, h, t)
       ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash, timestamp = EXCLUDED.timestamp`,
      [
        chainId,
        col(data.blocks, (b) => b.number.toString()),
        col(data.blocks, (b) => hexDigits(b.hash)),
        col(data.blocks, (b) => b.timestamp),
      ],
    );
  }
  const time = (n: bigint) => ts.get(n) ?? 0;
  await bulkInsert(tx, "deposits", data.deposits.columns, data.deposits.bytes);
  const fills = createCopyLines();
  for (const x of data.fills) {
    fills.push(
      `${b(x.relayHash)}\t${chainId}\t${x.originChainId}\t${x.depositId}\t${b(x.relayer)}\t${x.repaymentChainId}\t${x.fillType}\t${b(x.updatedRecipient)}\t${x.updatedOutputAmount}\t${x.callsFailed}\t${b(x.txHash)}\t${x.logIndex}\t${x.blockNumber}\t${time(x.blockNumber)}\n`,
    );
  }
  await bulkInsert(tx, "fills", FILL_COLUMNS, fills.bytes());
  for (const s of data.slowFills) {
    await tx.query(
      `INSERT INTO crosschain.slow_fill_requests (relay_hash, destination_chain_id, tx_hash, block_number)
       VALUES (decode($1, 'hex'), $2, decode($3, 'hex'), $4) ON CONFLICT DO NOTHING`,
      [hexDigits(s.relayHash), chainId, hexDigits(s.txHash), s.blockNumber.toString()],
    );
  }
  for (const s of data.speedUps) {
    await tx.query(
      `INSERT INTO crosschain.speedups (origin_chain_id, deposit_id, depositor, updated_output_amount, updated_recipient,
         updated_message, depositor_signature, tx_hash, log_index, block_number)
       VALUES ($1, $2, decode($3, 'hex'), $4, decode($5, 'hex'), decode($6, 'hex'), decode($7, 'hex'), decode($8, 'hex'),
         $9, $10)
       ON CONFLICT DO NOTHING`,
      [
        chainId,
        s.depositId.toString(),
        hexDigits(s.depositor),
        s.updatedOutputAmount.toString(),
        hexDigits(s.updatedRecipient),
        hexDigits(s.updatedMessage),
        hexDigits(s.depositorSignature),
        hexDigits(s.txHash),
        s.logIndex,
        s.blockNumber.toString(),
      ],
    );
  }
  for (const s of data.settlements) {
    await tx.query(
      `INSERT INTO crosschain.settlement_events (chain_id, event_name, args, tx_hash, log_index, block_number)
       VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6) ON CONFLICT DO NOTHING`,
      [chainId, s.eventName, JSON.stringify(s.args), hexDigits(s.txHash), s.logIndex, s.blockNumber.toString()],
    );
  }
}

/**
 * `fence`, when given (the chain's indexer lease, chains' createIndexerLease), is asserted in every
 * transaction that moves the checkpoint, so an instance that lost the lease writes nothing.
 */
export function createIndexerStore(db: Database, fence?: WriteFence) {
  return {
    async checkpoint(chainId: number): Promise<IndexerCheckpoint | undefined> {
      const [row] = await db.query<IndexerCheckpoint>("SELECT * FROM crosschain.chains WHERE chain_id = $1", [chainId]);
      return row;
    },

    /** Forgets a chain's events and starts it at `startBlock` (first run, reset devnet, deep reorg). */
    async startOver(chainId: number, spokePool: Hex, genesisHash: Hex, startBlock: bigint): Promise<void> {
      await db.transaction(async (tx) => {
        await fence?.(tx);
        const moved = await statusKeysAbove(tx, chainId, 0n);
        await deleteAbove(tx, chainId, -1n);
        await tx.query(
          `INSERT INTO crosschain.chains (chain_id, spoke_pool, genesis_hash, next_block, start_block)
           VALUES ($1, decode($2, 'hex'), decode($3, 'hex'), $4, $4)
           ON CONFLICT (chain_id) DO UPDATE SET spoke_pool = EXCLUDED.spoke_pool, genesis_hash = EXCLUDED.genesis_hash,
             next_block = EXCLUDED.next_block, start_block = EXCLUDED.start_block, integrator_next_block = NULL,
             rollbacks = crosschain.chains.rollbacks + 1, updated_at = now()`,
          [chainId, hexDigits(spokePool), hexDigits(genesisHash), startBlock.toString()],
        );
        if (moved.length) await recordStatusChanges(tx, { relayHashes: moved }, "reorg");
      });
    },

    async storedBlockHash(chainId: number, n: bigint): Promise<string | undefined> {
      const [row] = await db.query<{ hash: Buffer }>(
        "SELECT hash FROM crosschain.blocks WHERE chain_id = $1 AND number = $2",
        [chainId, n.toString()],
      );
      return row ? byteaToHex(row.hash) : undefined;
    },

    /** Stores the events of blocks `expectedNext..to` and moves the checkpoint; false if another writer moved it. */
    async appendRange(chainId: number, expectedNext: bigint, to: bigint, data: RangeData): Promise<boolean> {
      return db.transaction(async (tx) => {
        await fence?.(tx);
        const [row] = await tx.query<{ next_block: string }>(
          "SELECT next_block FROM crosschain.chains WHERE chain_id = $1 FOR UPDATE",
          [chainId],
        );
        if (!row || BigInt(row.next_block) !== expectedNext) return false;
        await insertRange(tx, chainId, data);
        await tx.query("UPDATE crosschain.chains SET next_block = $2, updated_at = now() WHERE chain_id = $1", [
          chainId,
          (to + 1n).toString(),
        ]);
        // Last: it holds the outbox's lock until the commit (see recordStatusChanges).
        await recordStatusChanges(tx, { chainId, fromBlock: expectedNext }, "indexer");
        return true;
      });
    },

    /** Removes everything this chain contributed above block `ancestor` and rewinds its checkpoint. */
    async rollbackTo(chainId: number, ancestor: bigint): Promise<void> {
      await db.transaction(async (tx) => {
        await fence?.(tx);
        // The deposits whose fill, slow request or refund goes with the blocks: their status moves back.
        const moved = await statusKeysAbove(tx, chainId, ancestor + 1n);
        await deleteAbove(tx, chainId, ancestor);
        await tx.query(
          `UPDATE crosschain.chains SET next_block = $2, rollbacks = rollbacks + 1, updated_at = now(),
             integrator_next_block = LEAST(COALESCE(integrator_next_block, start_block), $2)
           WHERE chain_id = $1`,
          [chainId, (ancestor + 1n).toString()],
        );
        if (moved.length) await recordStatusChanges(tx, { relayHashes: moved }, "reorg");
      });
    },
  };
}

async function deleteAbove(tx: Queryable, chainId: number, n: bigint) {
  const p = [chainId, n.toString()];
  await tx.query("DELETE FROM crosschain.deposits WHERE origin_chain_id = $1 AND block_number > $2", p);
  await tx.query("DELETE FROM crosschain.fills WHERE destination_chain_id = $1 AND block_number > $2", p);
  await tx.query("DELETE FROM crosschain.slow_fill_requests WHERE destination_chain_id = $1 AND block_number > $2", p);
  await tx.query("DELETE FROM crosschain.speedups WHERE origin_chain_id = $1 AND block_number > $2", p);
  await tx.query("DELETE FROM crosschain.settlement_events WHERE chain_id = $1 AND block_number > $2", p);
  await tx.query("DELETE FROM crosschain.blocks WHERE chain_id = $1 AND number > $2", p);
}

export type IndexerStore = ReturnType<typeof createIndexerStore>;
