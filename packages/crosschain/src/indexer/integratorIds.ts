/**
 * The integrator-id pass. The app-sdk marks a deposit's calldata with `1dc0de` + a 2-byte integrator id
 * (shown by GET /deposits); calldata is not in the logs, and reading it costs a transaction per deposit,
 * so it is read here, behind the event indexer, with a checkpoint of its own: deposits are visible at
 * once and get their integrator id a poll later. A transaction whose block is no longer the one the
 * indexer stored (a reorg in progress) stops the round; the indexer's rollback then moves this pass's
 * checkpoint back, and a save prepared before a rollback is refused.
 */
import type { BlockFetcher, Logger } from "@platform/chains";
import type { Hex } from "viem";
import type { IntegratorIdStore } from "../store/integratorIdStore.ts";
import { integratorIdOf } from "./spokePoolEvents.ts";

/** Deposit transactions read per round (one JSON-RPC batch per BATCH of them). */
const ROUND = 2_000;
const BATCH = 250;

export interface CreateIntegratorIdPassParameters {
  chainId: number;
  store: IntegratorIdStore;
  fetcher: BlockFetcher;
  logger: Logger;
}

/** One pass per chain; `step()` reads one round and returns true when nothing is left to read. */
export function createIntegratorIdPass(p: CreateIntegratorIdPassParameters) {
  return {
    async step(): Promise<boolean> {
      const read = await p.store.unread(p.chainId, ROUND);
      if (!read) return true;
      const ids: { txHash: Hex; integratorId: string | null }[] = [];
      for (let i = 0; i < read.transactions.length; i += BATCH) {
        const chunk = read.transactions.slice(i, i + BATCH);
        const txs = await p.fetcher.batch<{ input: string; blockHash: string | null } | null>(
          chunk.map((t) => ({ method: "eth_getTransactionByHash", params: [t.txHash] })),
        );
        for (const [k, t] of chunk.entries()) {
          const tx = txs[k];
          if (!tx || tx.blockHash?.toLowerCase() !== t.blockHash) {
            p.logger.debug?.({ chainId: p.chainId, txHash: t.txHash }, "deposit moved (reorg?): integrator ids wait");
            return true;
          }
          ids.push({ txHash: t.txHash, integratorId: integratorIdOf(tx.input) });
        }
      }
      await p.store.save(p.chainId, read, ids);
      return false;
    },
  };
}
