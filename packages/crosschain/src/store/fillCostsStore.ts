/**
 * Reads and writes of the fill-cost pass (see indexer/fillCosts.ts): the fills it has not read yet (with
 * their deposits and the hash of the block the indexer stored each fill from), and their costs saved in
 * one statement that only touches a fill still stored from that very block, so a save racing a rollback
 * writes nothing (the rolled-back fill is gone, or stored again from another block, and read again).
 */
import { byteaToHex, type Database, hexDigits } from "@platform/kernel";
import type { Hex } from "viem";

/** A fill the pass has not read, with what its deposit moved. */
export interface UnreadFill {
  relayHash: Hex;
  txHash: Hex;
  blockHash: Hex;
  originChainId: number;
  inputToken: Hex;
  inputAmount: bigint;
  outputToken: Hex;
  /** What the fill delivered (the deposit's output, or the depositor's sped-up one). */
  outputAmount: bigint;
  /** The origin swap before the deposit (SpokePoolPeriphery.swapAndBridge), when there was one. */
  originSwap: { swapToken: Hex; swapTokenAmount: bigint } | null;
}

/** What the pass records for a fill; USD values 1e18-scaled, null when a price is unknown. */
export interface FillCosts {
  relayHash: Hex;
  txHash: Hex;
  blockHash: Hex;
  gasFee: bigint;
  gasTokenPriceUsd: bigint | null;
  inputPriceUsd: bigint | null;
  outputPriceUsd: bigint | null;
  bridgeFeeUsd: bigint | null;
  swapTokenPriceUsd: bigint | null;
  swapFeeUsd: bigint | null;
}

/** A bytes32 column holding an EVM address (left-padded) as the 0x address. */
const addressOf = (b: Buffer) => byteaToHex(b.subarray(12));
const text = (v: bigint | null) => (v === null ? null : v.toString());

export function createFillCostsStore(db: Database) {
  return {
    /**
     * Up to `limit` unread fills of the destination chain whose deposit is indexed and its calldata read (the
     * integrator-id pass's checkpoint is past it, so its origin swap is known), oldest first.
     */
    async unread(chainId: number, limit: number): Promise<UnreadFill[]> {
      const rows = await db.query<{
        relay_hash: Buffer;
        tx_hash: Buffer;
        block_hash: Buffer;
        origin_chain_id: string;
        input_token: Buffer;
        input_amount: string;
        output_token: Buffer;
        updated_output_amount: string;
        swap_token: Buffer | null;
        swap_token_amount: string | null;
      }>(
        `SELECT f.relay_hash, f.tx_hash, b.hash AS block_hash, d.origin_chain_id, d.input_token, d.input_amount,
                d.output_token, f.updated_output_amount, d.swap_token, d.swap_token_amount
         FROM crosschain.fills f
         JOIN crosschain.deposits d ON d.relay_hash = f.relay_hash
         JOIN crosschain.chains c ON c.chain_id = d.origin_chain_id
           AND d.block_number < COALESCE(c.integrator_next_block, c.start_block)
         JOIN crosschain.blocks b ON b.chain_id = f.destination_chain_id AND b.number = f.block_number
         WHERE f.destination_chain_id = $1 AND f.gas_fee IS NULL
         ORDER BY f.block_number, f.log_index LIMIT $2`,
        [chainId, limit],
      );
      return rows.map((r) => ({
        relayHash: byteaToHex(r.relay_hash),
        txHash: byteaToHex(r.tx_hash),
        blockHash: byteaToHex(r.block_hash),
        originChainId: Number(r.origin_chain_id),
        inputToken: addressOf(r.input_token),
        inputAmount: BigInt(r.input_amount),
        outputToken: addressOf(r.output_token),
        outputAmount: BigInt(r.updated_output_amount),
        originSwap:
          r.swap_token && r.swap_token_amount !== null
            ? { swapToken: addressOf(r.swap_token), swapTokenAmount: BigInt(r.swap_token_amount) }
            : null,
      }));
    },

    /** Records the costs of fills still stored from the block they were read in; returns how many were. */
    async save(chainId: number, costs: readonly FillCosts[]): Promise<number> {
      if (costs.length === 0) return 0;
      const rows = await db.query<{ n: string }>(
        `WITH saved AS (
           UPDATE crosschain.fills f SET gas_fee = x.gas_fee, gas_token_price_usd = x.gas_token_price_usd,
             input_price_usd = x.input_price_usd, output_price_usd = x.output_price_usd,
             bridge_fee_usd = x.bridge_fee_usd, swap_token_price_usd = x.swap_token_price_usd,
             swap_fee_usd = x.swap_fee_usd
           FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[],
                       $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[])
             AS x(relay_hash, tx_hash, block_hash, gas_fee, gas_token_price_usd, input_price_usd, output_price_usd,
                  bridge_fee_usd, swap_token_price_usd, swap_fee_usd)
           WHERE f.destination_chain_id = $1 AND f.relay_hash = decode(x.relay_hash, 'hex')
             AND f.tx_hash = decode(x.tx_hash, 'hex') AND f.gas_fee IS NULL
             AND EXISTS (SELECT 1 FROM crosschain.blocks b WHERE b.chain_id = f.destination_chain_id
                           AND b.number = f.block_number AND b.hash = decode(x.block_hash, 'hex'))
           RETURNING 1)
         SELECT count(*) AS n FROM saved`,
        [
          chainId,
          costs.map((c) => hexDigits(c.relayHash)),
          costs.map((c) => hexDigits(c.txHash)),
          costs.map((c) => hexDigits(c.blockHash)),
          costs.map((c) => c.gasFee.toString()),
          costs.map((c) => text(c.gasTokenPriceUsd)),
          costs.map((c) => text(c.inputPriceUsd)),
          costs.map((c) => text(c.outputPriceUsd)),
          costs.map((c) => text(c.bridgeFeeUsd)),
          costs.map((c) => text(c.swapTokenPriceUsd)),
          costs.map((c) => text(c.swapFeeUsd)),
        ],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type FillCostsStore = ReturnType<typeof createFillCostsStore>;
