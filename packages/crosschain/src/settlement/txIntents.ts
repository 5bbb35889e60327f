/**
 * The dataworker's transactions, each sent at most once per (bundle, step): the signed transaction is written
 * (with its nonce and hash, under the lease fence) BEFORE it is broadcast. A restart finds the intent and
 * re-broadcasts exactly the same bytes, or confirms it from its receipt; only when its nonce went to another
 * transaction (it was dropped) may the step be sent again, after the caller re-checked the chain.
 */
import { byteaToHex, type Database, hexDigits } from "@platform/kernel";
import {
  type Address,
  type Hex,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { classifyBroadcastError, shortError } from "../relayer/fillSender.ts";
import type { Fence } from "../store/bundlesRepository.ts";

/** One transaction of a step. */
export interface StepTx {
  bundleId: number;
  /** Unique within the bundle, e.g. `propose`, `pool-leaf:3`, `refund-leaf:10:2`. */
  step: string;
  chainId: number;
  to: Address;
  data: Hex;
  value?: bigint;
}

/** A step's transaction reverted on chain: the caller re-reads the chain to learn why. */
export class StepRevertedError extends Error {
  constructor(
    readonly step: string,
    readonly txHash: Hex,
  ) {
    super(`settlement step ${step} reverted (${txHash})`);
  }
}

export interface TxIntentsParameters {
  db: Database;
  fence: Fence;
  account: PrivateKeyAccount;
  clientOf(chainId: number): PublicClient;
  /** How long to wait for a receipt before giving the tick up (the next tick resumes). */
  receiptTimeoutMs?: number;
}

const bytea = (h: string) => Buffer.from(hexDigits(h), "hex");

export function createTxIntents(p: TxIntentsParameters) {
  const timeoutMs = p.receiptTimeoutMs ?? 60_000;

  async function liveIntent(bundleId: number, step: string) {
    const [row] = await p.db.query<{ id: string; nonce: string; raw_tx: Buffer; tx_hash: Buffer; state: string }>(
      `SELECT id, nonce, raw_tx, tx_hash, state FROM crosschain.settlement_txs
       WHERE bundle_id = $1 AND step = $2 AND state <> 'dropped'`,
      [bundleId, step],
    );
    return row;
  }

  async function setState(id: string, state: string, blockNumber?: bigint, error?: string) {
    await p.db.transaction(async (tx) => {
      await p.fence(tx);
      await tx.query(
        `UPDATE crosschain.settlement_txs SET state = $2, block_number = coalesce($3, block_number),
           last_error = coalesce($4, last_error), updated_at = now() WHERE id = $1`,
        [id, state, blockNumber?.toString() ?? null, error ?? null],
      );
    });
  }

  async function receiptOf(client: PublicClient, hash: Hex): Promise<TransactionReceipt | undefined> {
    return client.getTransactionReceipt({ hash }).catch(() => undefined);
  }

  async function broadcast(client: PublicClient, raw: Hex): Promise<"sent" | "nonce-used"> {
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
      return "sent";
    } catch (error) {
      const kind = classifyBroadcastError(error);
      if (kind === "known") return "sent";
      if (kind === "nonce-used") return "nonce-used";
      throw new Error(`broadcast failed (${kind}): ${shortError(error)}`);
    }
  }

  async function waitForReceipt(client: PublicClient, hash: Hex): Promise<TransactionReceipt | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 20; Date.now() < deadline; delay = Math.min(delay * 2, 500)) {
      const receipt = await receiptOf(client, hash);
      if (receipt) return receipt;
      await new Promise((r) => setTimeout(r, delay));
    }
    return undefined;
  }

  /** Settles an intent already written: its receipt, or undefined when it was dropped (the step may be resent). */
  async function resume(
    client: PublicClient,
    row: { id: string; nonce: string; raw_tx: Buffer; tx_hash: Buffer; state: string },
    step: string,
  ) {
    const hash = byteaToHex(row.tx_hash) as Hex;
    let receipt = await receiptOf(client, hash);
    if (!receipt) {
      // Not mined (or a reorg took it out): the same bytes again, unless its nonce is taken by now.
      const outcome = await broadcast(client, byteaToHex(row.raw_tx) as Hex);
      receipt = outcome === "sent" ? await waitForReceipt(client, hash) : await receiptOf(client, hash);
      if (!receipt && outcome === "nonce-used") {
        await setState(row.id, "dropped", undefined, "its nonce was used by another transaction");
        return undefined;
      }
      if (!receipt) throw new Error(`settlement step ${step}: no receipt for ${hash} yet`);
    }
    const state = receipt.status === "success" ? "confirmed" : "reverted";
    if (row.state !== state) await setState(row.id, state, receipt.blockNumber);
    if (state === "reverted") throw new StepRevertedError(step, hash);
    return receipt;
  }

  return {
    /** The receipt of the step's transaction if one was sent and mined (never sends). */
    async receiptOf(bundleId: number, step: string, chainId: number): Promise<TransactionReceipt | undefined> {
      const row = await liveIntent(bundleId, step);
      return row ? receiptOf(p.clientOf(chainId), byteaToHex(row.tx_hash) as Hex) : undefined;
    },

    /** Whether an intent of this step exists (sent or mined). */
    async hasIntent(bundleId: number, step: string): Promise<boolean> {
      return (await liveIntent(bundleId, step)) !== undefined;
    },

    /**
     * Sends the step's transaction unless one was already sent, and returns its receipt. The caller checks
     * the chain for the step's effect before calling (an effect with no intent of ours is recorded, not sent).
     * Throws {@link StepRevertedError} when the transaction reverted.
     */
    async send(tx: StepTx): Promise<TransactionReceipt> {
      const client = p.clientOf(tx.chainId);
      const existing = await liveIntent(tx.bundleId, tx.step);
      if (existing) {
        const receipt = await resume(client, existing, tx.step);
        if (receipt) return receipt;
      }
      const request = await client.prepareTransactionRequest({
        account: p.account,
        chain: client.chain,
        to: tx.to,
        data: tx.data,
        value: tx.value ?? 0n,
        nonce: await client.getTransactionCount({ address: p.account.address, blockTag: "pending" }),
      });
      const raw = await p.account.signTransaction(request as Parameters<PrivateKeyAccount["signTransaction"]>[0]);
      const hash = keccak256(raw);
      const [row] = await p.db.transaction(async (q) => {
        await p.fence(q);
        return q.query<{ id: string }>(
          `INSERT INTO crosschain.settlement_txs (bundle_id, step, chain_id, sender, nonce, raw_tx, tx_hash, state)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'sent') RETURNING id`,
          [tx.bundleId, tx.step, tx.chainId, bytea(p.account.address), request.nonce, bytea(raw), bytea(hash)],
        );
      });
      const receipt = await resume(
        client,
        {
          id: row?.id as string,
          nonce: String(request.nonce),
          raw_tx: bytea(raw),
          tx_hash: bytea(hash),
          state: "sent",
        },
        tx.step,
      );
      if (!receipt) throw new Error(`settlement step ${tx.step}: its nonce was taken before it was mined`);
      return receipt;
    },
  };
}

export type TxIntents = ReturnType<typeof createTxIntents>;
