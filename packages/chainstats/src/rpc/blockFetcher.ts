/**
 * Block headers over JSON-RPC: `eth_getBlockByNumber(n, false)` many per batch request, several
 * batch requests in flight. HTTP(S) endpoints only (batching is an HTTP JSON-RPC feature).
 */
import type { BlockHeader } from "../domain/rollup.ts";

export interface BlockFetcher {
  blockNumber(): Promise<bigint>;
  /** Headers of blocks `from..to` (inclusive) in order; missing blocks (beyond the head) end the list. */
  blocks(from: bigint, to: bigint): Promise<BlockHeader[]>;
  block(number: bigint): Promise<BlockHeader | undefined>;
}

export interface CreateBlockFetcherParameters {
  rpcUrl: string;
  batchSize: number;
  concurrency: number;
  timeoutMs?: number;
}

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  gasLimit: string;
  gasUsed: string;
  baseFeePerGas?: string | null;
  size?: string;
  transactions: unknown[];
  miner: string;
}

export class RpcError extends Error {
  override name = "RpcError";
}

const toHeader = (b: RpcBlock): BlockHeader => ({
  number: BigInt(b.number),
  hash: b.hash,
  parentHash: b.parentHash,
  timestamp: Number(BigInt(b.timestamp)),
  gasLimit: BigInt(b.gasLimit),
  gasUsed: BigInt(b.gasUsed),
  baseFeePerGas: b.baseFeePerGas ? BigInt(b.baseFeePerGas) : null,
  size: b.size ? BigInt(b.size) : 0n,
  txCount: b.transactions.length,
  miner: b.miner,
  blockTime: null,
});

export function createBlockFetcher(p: CreateBlockFetcherParameters): BlockFetcher {
  const url = p.rpcUrl;
  if (!/^https?:/.test(url)) throw new RpcError(`chainstats needs an http(s) JSON-RPC URL for batching, got ${url}`);
  let id = 0;

  async function post(body: unknown): Promise<unknown> {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(p.timeoutMs ?? 15_000),
    });
    if (!res.ok) throw new RpcError(`RPC ${url} answered HTTP ${res.status}`);
    return res.json();
  }

  async function batch(numbers: bigint[]): Promise<(RpcBlock | null)[]> {
    const calls = numbers.map((n) => ({
      jsonrpc: "2.0",
      id: ++id,
      method: "eth_getBlockByNumber",
      params: [`0x${n.toString(16)}`, false],
    }));
    const replies = (await post(calls)) as { id: number; result?: RpcBlock | null; error?: { message: string } }[];
    if (!Array.isArray(replies)) throw new RpcError("RPC did not answer the batch with an array");
    const byId = new Map(replies.map((r) => [r.id, r]));
    return calls.map((c) => {
      const r = byId.get(c.id);
      if (!r) throw new RpcError(`RPC reply for ${c.params[0]} is missing`);
      if (r.error) throw new RpcError(`eth_getBlockByNumber(${c.params[0]}): ${r.error.message}`);
      return r.result ?? null;
    });
  }

  return {
    async blockNumber() {
      const r = (await post({ jsonrpc: "2.0", id: ++id, method: "eth_blockNumber", params: [] })) as {
        result?: string;
        error?: { message: string };
      };
      if (!r.result) throw new RpcError(`eth_blockNumber: ${r.error?.message ?? "no result"}`);
      return BigInt(r.result);
    },

    async blocks(from, to) {
      const numbers: bigint[] = [];
      for (let n = from; n <= to; n++) numbers.push(n);
      const chunks: bigint[][] = [];
      for (let i = 0; i < numbers.length; i += p.batchSize) chunks.push(numbers.slice(i, i + p.batchSize));
      const results: (RpcBlock | null)[][] = new Array(chunks.length);
      let next = 0;
      const worker = async () => {
        while (next < chunks.length) {
          const i = next++;
          results[i] = await batch(chunks[i] as bigint[]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(p.concurrency, chunks.length) }, worker));
      const headers: BlockHeader[] = [];
      for (const b of results.flat()) {
        if (!b) break;
        headers.push(toHeader(b));
      }
      return headers;
    },

    async block(number) {
      const [b] = await batch([number]);
      return b ? toHeader(b) : undefined;
    },
  };
}
