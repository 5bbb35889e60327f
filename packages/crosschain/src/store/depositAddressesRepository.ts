/**
 * SQL of counterfactual deposit addresses (`crosschain.deposit_addresses`) and of what the watcher did with
 * their funds (`crosschain.deposit_address_executions`).
 */
import { byteaToHex, type Database, hexToBytea, type Queryable } from "@platform/kernel";
import type { Address, Hex } from "viem";

export interface DepositAddressRow {
  originChainId: number;
  address: Address;
  root: Hex;
  inputToken: Address;
  inputSymbol: string;
  inputDecimals: number;
  routeParams: Hex;
  withdrawParams: Hex;
  destinationChainId: number;
  outputToken: Address;
  refundAddress: Address;
  maxFeeBps: number;
  stableExchangeRate: bigint;
}

export interface ExecutionRow {
  originChainId: number;
  address: Address;
  seq: number;
  kind: "deposit" | "refund";
  amount: bigint;
  rawTx: Hex;
  txHash: Hex;
  state: "sent" | "confirmed" | "failed";
}

interface DbAddressRow {
  origin_chain_id: string | number;
  address: Buffer;
  root: Buffer;
  input_token: Buffer;
  input_symbol: string;
  input_decimals: number;
  route_params: Buffer;
  withdraw_params: Buffer;
  destination_chain_id: string | number;
  output_token: Buffer;
  refund_address: Buffer;
  max_fee_bps: number;
  stable_exchange_rate: string;
}

const toAddressRow = (r: DbAddressRow): DepositAddressRow => ({
  originChainId: Number(r.origin_chain_id),
  address: byteaToHex(r.address) as Address,
  root: byteaToHex(r.root),
  inputToken: byteaToHex(r.input_token) as Address,
  inputSymbol: r.input_symbol,
  inputDecimals: r.input_decimals,
  routeParams: byteaToHex(r.route_params),
  withdrawParams: byteaToHex(r.withdraw_params),
  destinationChainId: Number(r.destination_chain_id),
  outputToken: byteaToHex(r.output_token) as Address,
  refundAddress: byteaToHex(r.refund_address) as Address,
  maxFeeBps: r.max_fee_bps,
  stableExchangeRate: BigInt(r.stable_exchange_rate),
});

export function createDepositAddressesRepository(db: Database) {
  return {
    /** Records an issued address (issuing the same one again changes nothing). */
    async save(row: DepositAddressRow): Promise<void> {
      await db.query(
        `INSERT INTO crosschain.deposit_addresses (origin_chain_id, address, root, input_token, input_symbol,
           input_decimals, route_params, withdraw_params, destination_chain_id, output_token, refund_address,
           max_fee_bps, stable_exchange_rate)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (origin_chain_id, address) DO NOTHING`,
        [
          row.originChainId,
          hexToBytea(row.address),
          hexToBytea(row.root),
          hexToBytea(row.inputToken),
          row.inputSymbol,
          row.inputDecimals,
          hexToBytea(row.routeParams),
          hexToBytea(row.withdrawParams),
          row.destinationChainId,
          hexToBytea(row.outputToken),
          hexToBytea(row.refundAddress),
          row.maxFeeBps,
          row.stableExchangeRate.toString(),
        ],
      );
    },

    /** Every address issued on a chain (the watcher's list). */
    async onChain(originChainId: number): Promise<DepositAddressRow[]> {
      const rows = await db.query<DbAddressRow>(
        "SELECT * FROM crosschain.deposit_addresses WHERE origin_chain_id = $1 ORDER BY created_at, address",
        [originChainId],
      );
      return rows.map(toAddressRow);
    },

    /** Executions sent and not settled yet. */
    async openExecutions(originChainId: number): Promise<ExecutionRow[]> {
      const rows = await db.query<{
        address: Buffer;
        seq: number;
        kind: "deposit" | "refund";
        amount: string;
        raw_tx: Buffer;
        tx_hash: Buffer;
        state: "sent";
      }>(
        `SELECT address, seq, kind, amount, raw_tx, tx_hash, state FROM crosschain.deposit_address_executions
         WHERE origin_chain_id = $1 AND state = 'sent' ORDER BY created_at`,
        [originChainId],
      );
      return rows.map((r) => ({
        originChainId,
        address: byteaToHex(r.address) as Address,
        seq: r.seq,
        kind: r.kind,
        amount: BigInt(r.amount),
        rawTx: byteaToHex(r.raw_tx),
        txHash: byteaToHex(r.tx_hash),
        state: r.state,
      }));
    },

    /** The next execution number of an address. */
    async nextSeq(q: Queryable, originChainId: number, address: Address): Promise<number> {
      const [row] = await q.query<{ next: number }>(
        `SELECT coalesce(max(seq) + 1, 0)::int AS next FROM crosschain.deposit_address_executions
         WHERE origin_chain_id = $1 AND address = $2`,
        [originChainId, hexToBytea(address)],
      );
      return row?.next ?? 0;
    },

    /**
     * Records a signed execution before it is broadcast (see the migration). `fence` (the watcher's lease on
     * the chain) is asserted in the same transaction: an instance that lost the lease records, so sends, nothing.
     */
    async recordSent(e: Omit<ExecutionRow, "state">, fence?: (tx: Queryable) => Promise<void>): Promise<void> {
      await db.transaction(async (tx) => {
        await fence?.(tx);
        await tx.query(
          `INSERT INTO crosschain.deposit_address_executions
           (origin_chain_id, address, seq, kind, amount, raw_tx, tx_hash, state)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'sent')`,
          [
            e.originChainId,
            hexToBytea(e.address),
            e.seq,
            e.kind,
            e.amount.toString(),
            hexToBytea(e.rawTx),
            hexToBytea(e.txHash),
          ],
        );
      });
    },

    async settle(
      e: Pick<ExecutionRow, "originChainId" | "address" | "seq">,
      state: "confirmed" | "failed",
      error?: string,
    ) {
      await db.query(
        `UPDATE crosschain.deposit_address_executions SET state = $4, error = $5, updated_at = now()
         WHERE origin_chain_id = $1 AND address = $2 AND seq = $3`,
        [e.originChainId, hexToBytea(e.address), e.seq, state, error ?? null],
      );
    },

    /** Executions of an address, oldest first (for status and tests). */
    async executions(originChainId: number, address: Address) {
      return db.query<{ seq: number; kind: string; amount: string; state: string; error: string | null }>(
        `SELECT seq, kind, amount, state, error FROM crosschain.deposit_address_executions
         WHERE origin_chain_id = $1 AND address = $2 ORDER BY seq`,
        [originChainId, hexToBytea(address)],
      );
    },
  };
}

export type DepositAddressesRepository = ReturnType<typeof createDepositAddressesRepository>;
