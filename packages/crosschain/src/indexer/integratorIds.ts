/**
 * The integrator-id pass. The app-sdk marks a deposit's calldata with `1dc0de` + a 2-byte integrator id
 * (shown by GET /deposits), and a `SpokePoolPeriphery.swapAndBridge` call names the origin swap before the
 * deposit (originSwaps.ts: swapToken, swapTokenAmount in /deposits); calldata is not in the logs, and reading it costs a transaction per deposit,
 * so it is read here, behind the event indexer, with a checkpoint of its own: deposits are visible at
 * once and get their integrator id a poll later. A transaction whose block is no longer the one the
 * indexer stored (a reorg in progress) stops the round; the indexer's rollback then moves this pass's
 * checkpoint back, and a save prepared before a rollback is refused.
 */
import type { BlockFetcher } from "@platform/chains";
import type { Logger } from "@platform/kernel";
import type { DepositCalldata, IntegratorIdStore, UnreadDeposits } from "../store/integratorIdStore.ts";
import { originSwapOf } from "./originSwaps.ts";
import { integratorIdOf } from "./spokePoolEvents.ts";

/** Deposit transactions read per round. */
const ROUND = 2_000;
/** Transactions per JSON-RPC batch request. */
const BATCH = 250;
/** A block with at least this many deposit transactions is read whole (one call instead of one per transaction). */
const WHOLE_BLOCK = 16;

/**
 * The calldata and block hash of `transactions`: blocks dense in deposits read whole (the fetcher's
 * `transactionInputs`), the rest by transaction hash.
 */
async function readInputs(fetcher: BlockFetcher, transactions: UnreadDeposits["transactions"]) {
  const perBlock = new Map<bigint, number>();
  for (const t of transactions) perBlock.set(t.blockNumber, (perBlock.get(t.blockNumber) ?? 0) + 1);
  const whole = [...perBlock].filter(([, n]) => n >= WHOLE_BLOCK).map(([b]) => b);
  const out = await fetcher.transactionInputs(whole);
  const single = transactions.filter((t) => (perBlock.get(t.blockNumber) ?? 0) < WHOLE_BLOCK);
  for (let i = 0; i < single.length; i += BATCH) {
    const txs = await fetcher.batch<{ hash: string; input: string; blockHash: string | null } | null>(
      single.slice(i, i + BATCH).map((t) => ({ method: "eth_getTransactionByHash", params: [t.txHash] })),
    );
    for (const tx of txs) {
      if (tx) out.set(tx.hash.toLowerCase(), { input: tx.input, blockHash: (tx.blockHash ?? "").toLowerCase() });
    }
  }
  return out;
}

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
      const ids: DepositCalldata[] = [];
      const inputs = await readInputs(p.fetcher, read.transactions);
      for (const t of read.transactions) {
        const tx = inputs.get(t.txHash);
        if (!tx || tx.blockHash !== t.blockHash) {
          p.logger.debug({ chainId: p.chainId, txHash: t.txHash }, "deposit moved (reorg?): integrator ids wait");
          return true;
        }
        ids.push({ txHash: t.txHash, integratorId: integratorIdOf(tx.input), originSwap: originSwapOf(tx.input) });
      }
      await p.store.save(p.chainId, read, ids);
      return false;
    },
  };
}
