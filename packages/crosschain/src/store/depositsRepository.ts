/**
 * Reads of deposits with their fills, for `/deposit/status` and `/deposits`. Status is derived at read
 * time (see domain/depositStatus.ts); `STATUS_SQL` is the same rule in SQL, used to filter by status.
 */
import type { Database } from "@platform/kernel";
import { STATUS_JOINS, STATUS_SQL } from "./depositStatusSql.ts";

export interface DepositRow {
  /** Row id (the anchor's numeric `id` in /deposits); assigned at insert, so a re-indexed deposit gets a new one. */
  id: string;
  origin_chain_id: string;
  deposit_id: string;
  destination_chain_id: string;
  relay_hash: Buffer;
  depositor: Buffer;
  recipient: Buffer;
  exclusive_relayer: Buffer;
  input_token: Buffer;
  output_token: Buffer;
  input_amount: string;
  output_amount: string;
  quote_timestamp: string;
  fill_deadline: string;
  exclusivity_deadline: string;
  message: Buffer;
  message_hash: Buffer;
  integrator_id: string | null;
  /** The origin swap before the deposit (swapAndBridge calldata), once the calldata pass read it. */
  swap_token: Buffer | null;
  swap_token_amount: string | null;
  tx_hash: Buffer;
  log_index: number;
  block_number: string;
  block_timestamp: string;
  fill_tx_hash: Buffer | null;
  fill_relayer: Buffer | null;
  fill_block_number: string | null;
  fill_block_timestamp: string | null;
  fill_calls_failed: boolean | null;
  fill_gas_fee: string | null;
  /** USD prices and the bridge fee (1e18-scaled) the fill-cost pass recorded; null until then or when unknown. */
  fill_gas_token_price_usd: string | null;
  fill_input_price_usd: string | null;
  fill_output_price_usd: string | null;
  fill_bridge_fee_usd: string | null;
  fill_swap_token_price_usd: string | null;
  fill_swap_fee_usd: string | null;
  slow_fill_requested: boolean;
  /** The transaction that executed the refund leaf paying this expired deposit back (see depositStatusSql.ts). */
  refund_tx_hash: Buffer | null;
  speedups: {
    transactionHash: string;
    updatedRecipient: string;
    updatedMessage: string;
    blockNumber: number;
    updatedOutputAmount: string;
  }[];
}

const SELECT = `
  SELECT d.*, f.tx_hash AS fill_tx_hash, f.relayer AS fill_relayer, f.block_number AS fill_block_number,
         f.block_timestamp AS fill_block_timestamp, f.calls_failed AS fill_calls_failed, f.gas_fee AS fill_gas_fee,
         f.gas_token_price_usd AS fill_gas_token_price_usd, f.input_price_usd AS fill_input_price_usd,
         f.output_price_usd AS fill_output_price_usd, f.bridge_fee_usd AS fill_bridge_fee_usd,
         f.swap_token_price_usd AS fill_swap_token_price_usd, f.swap_fee_usd AS fill_swap_fee_usd,
         (s.relay_hash IS NOT NULL) AS slow_fill_requested, r.tx_hash AS refund_tx_hash,
         coalesce((SELECT json_agg(json_build_object(
             'transactionHash', '0x' || encode(u.tx_hash, 'hex'), 'updatedRecipient', '0x' || encode(u.updated_recipient, 'hex'),
             'updatedMessage', '0x' || encode(u.updated_message, 'hex'), 'blockNumber', u.block_number,
             'updatedOutputAmount', u.updated_output_amount::text) ORDER BY u.block_number, u.log_index)
           FROM crosschain.speedups u WHERE u.origin_chain_id = d.origin_chain_id AND u.deposit_id = d.deposit_id), '[]') AS speedups
  FROM crosschain.deposits d
  ${STATUS_JOINS}`;

export interface ListDepositsParameters {
  depositor?: Buffer | undefined;
  recipient?: Buffer | undefined;
  /** Depositor or recipient. */
  address?: Buffer | undefined;
  originChainId?: number | undefined;
  destinationChainId?: number | undefined;
  inputToken?: Buffer | undefined;
  outputToken?: Buffer | undefined;
  integratorId?: string | undefined;
  status?: string | undefined;
  /** Deposit block range, inclusive. */
  startBlock?: number | undefined;
  endBlock?: number | undefined;
  /** Fill block range, inclusive (only filled deposits match). */
  startFillBlock?: number | undefined;
  endFillBlock?: number | undefined;
  skip: number;
  limit: number;
  nowSec: number;
}

/** One deposit by origin chain and id; exported so the benchmark baseline runs exactly it. */
export const DEPOSIT_BY_ID_SQL = `${SELECT} WHERE d.origin_chain_id = $1 AND d.deposit_id = $2`;

export function createDepositsRepository(db: Database) {
  return {
    async byDepositId(originChainId: number, depositId: string): Promise<DepositRow | undefined> {
      const [row] = await db.query<DepositRow>(DEPOSIT_BY_ID_SQL, [originChainId, depositId]);
      return row;
    },

    /** The deposit with this (internal) relay hash: the anchor's `relayDataHash` lookup. */
    async byRelayHash(relayHash: Buffer): Promise<DepositRow | undefined> {
      const [row] = await db.query<DepositRow>(`${SELECT} WHERE d.relay_hash = $1`, [relayHash]);
      return row;
    },

    /** Every deposit of one transaction, in log order (one tx can hold several). */
    async byTxHash(txHash: Buffer): Promise<DepositRow[]> {
      return db.query<DepositRow>(`${SELECT} WHERE d.tx_hash = $1 ORDER BY d.origin_chain_id, d.log_index`, [txHash]);
    },

    /** The deposits made from `address`, oldest first (block time, then chain, block and log order). */
    async byDepositor(address: Buffer, index: number): Promise<{ row: DepositRow | undefined; count: number }> {
      const [rows, count] = await Promise.all([
        db.query<DepositRow>(
          `${SELECT} WHERE d.depositor = $1
           ORDER BY d.block_timestamp, d.origin_chain_id, d.block_number, d.log_index OFFSET $2 LIMIT 1`,
          [address, index],
        ),
        db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits WHERE depositor = $1", [address]),
      ]);
      return { row: rows[0], count: Number(count[0]?.n ?? 0) };
    },

    /** Newest first. */
    async list(p: ListDepositsParameters): Promise<DepositRow[]> {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: (n: number) => string, value: unknown) => {
        params.push(value);
        where.push(sql(params.length));
      };
      // As the anchor: `address` (depositor or recipient) takes the place of depositor/recipient.
      if (p.address) add((n) => `(d.depositor = $${n} OR d.recipient = $${n})`, p.address);
      else {
        if (p.depositor) add((n) => `d.depositor = $${n}`, p.depositor);
        if (p.recipient) add((n) => `d.recipient = $${n}`, p.recipient);
      }
      if (p.startBlock !== undefined) add((n) => `d.block_number >= $${n}`, p.startBlock);
      if (p.endBlock !== undefined) add((n) => `d.block_number <= $${n}`, p.endBlock);
      if (p.startFillBlock !== undefined) add((n) => `f.block_number >= $${n}`, p.startFillBlock);
      if (p.endFillBlock !== undefined) add((n) => `f.block_number <= $${n}`, p.endFillBlock);
      if (p.originChainId !== undefined) add((n) => `d.origin_chain_id = $${n}`, p.originChainId);
      if (p.destinationChainId !== undefined) add((n) => `d.destination_chain_id = $${n}`, p.destinationChainId);
      if (p.inputToken) add((n) => `d.input_token = $${n}`, p.inputToken);
      if (p.outputToken) add((n) => `d.output_token = $${n}`, p.outputToken);
      if (p.integratorId) add((n) => `d.integrator_id = $${n}`, p.integratorId.toLowerCase());
      if (p.status) {
        // "slowFilled" is never assigned (slow fills end as filled).
        params.push(p.nowSec);
        const nowParam = `$${params.length}::bigint`;
        add((n) => `${STATUS_SQL(nowParam)} = $${n}`, p.status);
      }
      params.push(p.limit, p.skip);
      return db.query<DepositRow>(
        `${SELECT} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY d.block_timestamp DESC, d.origin_chain_id DESC, d.block_number DESC, d.log_index DESC
         LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
    },
  };
}

export type DepositsRepository = ReturnType<typeof createDepositsRepository>;
