/**
 * Writes of the SpokePool indexer. A range of blocks is stored with its events, the hashes of the blocks
 * they came from (and of the range's last block) and the moved checkpoint in ONE transaction, so a kill
 * at any instant leaves the data and the checkpoint consistent; inserts are idempotent besides.
 */
import type { Database, Queryable } from "@platform/kernel";
import type { Hex } from "viem";
import type {
  DepositFact,
  FillFact,
  LogPosition,
  SettlementFact,
  SlowFillRequestFact,
  SpeedUpFact,
} from "../indexer/spokePoolEvents.ts";

export interface IndexerCheckpoint {
  next_block: string;
  start_block: string;
  genesis_hash: Buffer;
  spoke_pool: Buffer;
}

export interface RangeData {
  blocks: { number: bigint; hash: Hex; timestamp: number }[];
  deposits: (DepositFact & LogPosition & { integratorId: string | null })[];
  fills: (FillFact & LogPosition & { callsFailed: boolean })[];
  slowFills: (SlowFillRequestFact & LogPosition)[];
  speedUps: (SpeedUpFact & LogPosition)[];
  settlements: (SettlementFact & LogPosition)[];
}

const hex = (h: string) => h.replace(/^0x/, "");
const col = <T>(rows: T[], f: (r: T) => unknown) => rows.map(f);

async function insertRange(tx: Queryable, chainId: number, data: RangeData) {
  const ts = new Map(data.blocks.map((b) => [b.number, b.timestamp]));
  const time = (n: bigint) => ts.get(n) ?? 0;
  if (data.blocks.length) {
    await tx.query(
      `INSERT INTO crosschain.blocks (chain_id, number, hash, timestamp)
       SELECT $1, n, decode(h, 'hex'), t FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS b(n, h, t)
       ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash, timestamp = EXCLUDED.timestamp`,
      [
        chainId,
        col(data.blocks, (b) => b.number.toString()),
        col(data.blocks, (b) => hex(b.hash)),
        col(data.blocks, (b) => b.timestamp),
      ],
    );
  }
  const d = data.deposits;
  if (d.length) {
    await tx.query(
      `INSERT INTO crosschain.deposits (origin_chain_id, deposit_id, destination_chain_id, relay_hash, depositor, recipient,
         exclusive_relayer, input_token, output_token, input_amount, output_amount, quote_timestamp, fill_deadline,
         exclusivity_deadline, message, message_hash, integrator_id, tx_hash, tx_index, log_index, block_number, block_timestamp)
       SELECT $1, di, dc, decode(rh, 'hex'), decode(dp, 'hex'), decode(rc, 'hex'), decode(er, 'hex'), decode(it, 'hex'),
              decode(ot, 'hex'), ia, oa, qt, fd, ed, decode(m, 'hex'), decode(mh, 'hex'), ii, decode(th, 'hex'), ti, li, bn, bt
       FROM unnest($2::numeric[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::numeric[], $11::numeric[], $12::bigint[], $13::bigint[], $14::bigint[], $15::text[], $16::text[],
                   $17::text[], $18::text[], $19::int[], $20::int[], $21::bigint[], $22::bigint[])
         AS x(di, dc, rh, dp, rc, er, it, ot, ia, oa, qt, fd, ed, m, mh, ii, th, ti, li, bn, bt)
       ON CONFLICT DO NOTHING`,
      [
        chainId,
        col(d, (x) => x.depositId.toString()),
        col(d, (x) => x.destinationChainId),
        col(d, (x) => hex(x.relayHash)),
        col(d, (x) => hex(x.depositor)),
        col(d, (x) => hex(x.recipient)),
        col(d, (x) => hex(x.exclusiveRelayer)),
        col(d, (x) => hex(x.inputToken)),
        col(d, (x) => hex(x.outputToken)),
        col(d, (x) => x.inputAmount.toString()),
        col(d, (x) => x.outputAmount.toString()),
        col(d, (x) => x.quoteTimestamp),
        col(d, (x) => x.fillDeadline),
        col(d, (x) => x.exclusivityDeadline),
        col(d, (x) => hex(x.message)),
        col(d, (x) => hex(x.messageHash)),
        col(d, (x) => x.integratorId),
        col(d, (x) => hex(x.txHash)),
        col(d, (x) => x.txIndex),
        col(d, (x) => x.logIndex),
        col(d, (x) => x.blockNumber.toString()),
        col(d, (x) => time(x.blockNumber)),
      ],
    );
  }
  const f = data.fills;
  if (f.length) {
    await tx.query(
      `INSERT INTO crosschain.fills (relay_hash, destination_chain_id, origin_chain_id, deposit_id, relayer, repayment_chain_id,
         fill_type, updated_recipient, updated_output_amount, calls_failed, tx_hash, log_index, block_number, block_timestamp)
       SELECT decode(rh, 'hex'), $1, oc, di, decode(r, 'hex'), rp, ft, decode(ur, 'hex'), uo, cf, decode(th, 'hex'), li, bn, bt
       FROM unnest($2::text[], $3::bigint[], $4::numeric[], $5::text[], $6::bigint[], $7::smallint[], $8::text[],
                   $9::numeric[], $10::boolean[], $11::text[], $12::int[], $13::bigint[], $14::bigint[])
         AS x(rh, oc, di, r, rp, ft, ur, uo, cf, th, li, bn, bt)
       ON CONFLICT DO NOTHING`,
      [
        chainId,
        col(f, (x) => hex(x.relayHash)),
        col(f, (x) => x.originChainId),
        col(f, (x) => x.depositId.toString()),
        col(f, (x) => hex(x.relayer)),
        col(f, (x) => x.repaymentChainId),
        col(f, (x) => x.fillType),
        col(f, (x) => hex(x.updatedRecipient)),
        col(f, (x) => x.updatedOutputAmount.toString()),
        col(f, (x) => x.callsFailed),
        col(f, (x) => hex(x.txHash)),
        col(f, (x) => x.logIndex),
        col(f, (x) => x.blockNumber.toString()),
        col(f, (x) => time(x.blockNumber)),
      ],
    );
  }
  for (const s of data.slowFills) {
    await tx.query(
      `INSERT INTO crosschain.slow_fill_requests (relay_hash, destination_chain_id, tx_hash, block_number)
       VALUES (decode($1, 'hex'), $2, decode($3, 'hex'), $4) ON CONFLICT DO NOTHING`,
      [hex(s.relayHash), chainId, hex(s.txHash), s.blockNumber.toString()],
    );
  }
  for (const s of data.speedUps) {
    await tx.query(
      `INSERT INTO crosschain.speedups (origin_chain_id, deposit_id, depositor, updated_output_amount, updated_recipient,
         updated_message, tx_hash, log_index, block_number)
       VALUES ($1, $2, decode($3, 'hex'), $4, decode($5, 'hex'), decode($6, 'hex'), decode($7, 'hex'), $8, $9)
       ON CONFLICT DO NOTHING`,
      [
        chainId,
        s.depositId.toString(),
        hex(s.depositor),
        s.updatedOutputAmount.toString(),
        hex(s.updatedRecipient),
        hex(s.updatedMessage),
        hex(s.txHash),
        s.logIndex,
        s.blockNumber.toString(),
      ],
    );
  }
  for (const s of data.settlements) {
    await tx.query(
      `INSERT INTO crosschain.settlement_events (chain_id, event_name, args, tx_hash, log_index, block_number)
       VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6) ON CONFLICT DO NOTHING`,
      [chainId, s.eventName, JSON.stringify(s.args), hex(s.txHash), s.logIndex, s.blockNumber.toString()],
    );
  }
}

export function createIndexerStore(db: Database) {
  return {
    async checkpoint(chainId: number): Promise<IndexerCheckpoint | undefined> {
      const [row] = await db.query<IndexerCheckpoint>("SELECT * FROM crosschain.chains WHERE chain_id = $1", [chainId]);
      return row;
    },

    /** Forgets a chain's events and starts it at `startBlock` (first run, reset devnet, deep reorg). */
    async startOver(chainId: number, spokePool: Hex, genesisHash: Hex, startBlock: bigint): Promise<void> {
      await db.transaction(async (tx) => {
        await deleteAbove(tx, chainId, -1n);
        await tx.query(
          `INSERT INTO crosschain.chains (chain_id, spoke_pool, genesis_hash, next_block, start_block)
           VALUES ($1, decode($2, 'hex'), decode($3, 'hex'), $4, $4)
           ON CONFLICT (chain_id) DO UPDATE SET spoke_pool = EXCLUDED.spoke_pool, genesis_hash = EXCLUDED.genesis_hash,
             next_block = EXCLUDED.next_block, start_block = EXCLUDED.start_block, updated_at = now()`,
          [chainId, hex(spokePool), hex(genesisHash), startBlock.toString()],
        );
      });
    },

    async storedBlockHash(chainId: number, n: bigint): Promise<string | undefined> {
      const [row] = await db.query<{ hash: Buffer }>(
        "SELECT hash FROM crosschain.blocks WHERE chain_id = $1 AND number = $2",
        [chainId, n.toString()],
      );
      return row ? `0x${row.hash.toString("hex")}` : undefined;
    },

    /** Stores the events of blocks `expectedNext..to` and moves the checkpoint; false if another writer moved it. */
    async appendRange(chainId: number, expectedNext: bigint, to: bigint, data: RangeData): Promise<boolean> {
      return db.transaction(async (tx) => {
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
        return true;
      });
    },

    /** Removes everything this chain contributed above block `ancestor` and rewinds its checkpoint. */
    async rollbackTo(chainId: number, ancestor: bigint): Promise<void> {
      await db.transaction(async (tx) => {
        await deleteAbove(tx, chainId, ancestor);
        await tx.query("UPDATE crosschain.chains SET next_block = $2, updated_at = now() WHERE chain_id = $1", [
          chainId,
          (ancestor + 1n).toString(),
        ]);
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
