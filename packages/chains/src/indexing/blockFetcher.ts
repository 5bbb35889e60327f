/**
 * JSON-RPC for indexers: `eth_getBlockByNumber(n, false)` many per batch request, several batch
 * requests in flight, plus single calls. HTTP(S) endpoints only (batching is an HTTP JSON-RPC feature).
 */
import { isAscii } from "node:buffer";
import { type LogsView, scanLogsReply } from "./logsView.ts";
import { RpcRequestError, RpcResponseError } from "./rpcErrors.ts";
import { createRpcTransport } from "./rpcTransport.ts";
/** The header fields indexers read from `eth_getBlockByNumber(n, false)`. */
export interface BlockHeader {
  number: bigint;
  hash: string;
  parentHash: string;
  timestamp: number;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas: bigint | null;
  size: bigint;
  txCount: number;
  miner: string;
  /** Seconds since the parent; null when the parent is unknown (filled by the indexer). */
  blockTime: number | null;
}

export interface BlockFetcher {
  blockNumber(): Promise<bigint>;
  /** Headers of blocks `from..to` (inclusive) in order; missing blocks (beyond the head) end the list. */
  blocks(from: bigint, to: bigint): Promise<BlockHeader[]>;
  block(number: bigint): Promise<BlockHeader | undefined>;
  /** Headers of the given blocks (any order, deduplicated by the caller); missing ones are absent. */
  blocksByNumber(numbers: readonly bigint[]): Promise<BlockHeader[]>;
  /**
   * Calldata and block hash of every transaction in the given blocks, by lower-case transaction hash
   * (one full-block call per block, `concurrency` in flight: 4 by default, whatever the fetcher's own).
   */
  transactionInputs(
    numbers: readonly bigint[],
    concurrency?: number,
  ): Promise<Map<string, { input: string; blockHash: string }>>;
  /**
   * `eth_getLogs`, its reply read in place (see logsView.ts): for readers of many logs that would
   * otherwise spend most of their time parsing JSON into strings. `call("eth_getLogs", …)` still works.
   */
  getLogs(filter: LogFilter): Promise<LogsView>;
  /** One JSON-RPC call. */
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** Several JSON-RPC calls in one batch request; results in order. */
  batch<T>(calls: readonly { method: string; params: unknown[] }[]): Promise<T[]>;
}

/** `eth_getLogs`'s filter object, as sent. */
export interface LogFilter {
  fromBlock: `0x${string}`;
  toBlock: `0x${string}`;
  address?: string | readonly string[];
  topics?: readonly (string | readonly string[] | null)[];
}

export interface CreateBlockFetcherParameters {
  rpcUrl: string;
  batchSize: number;
  concurrency: number;
  timeoutMs?: number;
}

/** The `error` member of a JSON-RPC reply. */
interface JsonRpcError {
  code?: number;
  message?: string;
  data?: unknown;
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

/**
 * JSON from bytes. Node answers are ASCII (hex strings) but for the odd error text; for ASCII, latin1
 * decoding gives the same string without UTF-8 validation, which took a tenth of a backfill's main thread.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  return JSON.parse(isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8"));
}

export function createBlockFetcher(p: CreateBlockFetcherParameters): BlockFetcher {
  const url = p.rpcUrl;
  if (!/^https?:/.test(url)) {
    throw new RpcRequestError({
      url,
      details: "cannot serve indexers: they need an http(s) JSON-RPC URL for batching",
    });
  }
  let id = 0;
  const answeredError = (method: string, error: JsonRpcError) =>
    new RpcResponseError({
      url,
      method,
      details: typeof error.message === "string" ? error.message : JSON.stringify(error),
      code: typeof error.code === "number" ? error.code : undefined,
      data: error.data,
    });

  async function post(body: unknown): Promise<unknown> {
    return parseJsonBody(await postForBytes(body));
  }

  const transport = createRpcTransport({ url, timeoutMs: p.timeoutMs ?? 15_000 });
  const postForBytes = (body: unknown): Promise<Buffer> => transport(JSON.stringify(body));

  async function batchCalls<T>(calls: readonly { method: string; params: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const requests = calls.map((c) => ({ jsonrpc: "2.0", id: ++id, method: c.method, params: c.params }));
    const replies = (await post(requests)) as { id: number; result?: T; error?: JsonRpcError }[];
    if (!Array.isArray(replies)) {
      const error = (replies as { error?: JsonRpcError } | null)?.error;
      if (error) throw answeredError(calls[0]?.method ?? "a batch", error);
      throw new RpcResponseError({ url, method: "a batch", details: "the reply is not an array" });
    }
    const byId = new Map(replies.map((r) => [r.id, r]));
    return requests.map((c) => {
      const r = byId.get(c.id);
      if (!r) throw new RpcResponseError({ url, method: c.method, details: "the reply is missing" });
      if (r.error) throw answeredError(`${c.method}(${JSON.stringify(c.params).slice(1, 80)})`, r.error);
      return r.result as T;
    });
  }

  const batch = (numbers: readonly bigint[]) =>
    batchCalls<RpcBlock | null>(
      numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })),
    );

  return {
    async blockNumber() {
      const [result] = await batchCalls<string>([{ method: "eth_blockNumber", params: [] }]);
      return BigInt(result as string);
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

    async blocksByNumber(numbers) {
      const out: BlockHeader[] = [];
      for (let i = 0; i < numbers.length; i += p.batchSize) {
        for (const b of await batch(numbers.slice(i, i + p.batchSize))) if (b) out.push(toHeader(b));
      }
      return out;
    },

    async transactionInputs(numbers, concurrency = 4) {
      const inputs = new Map<string, { input: string; blockHash: string }>();
      let next = 0;
      const worker = async () => {
        while (next < numbers.length) {
          const n = numbers[next++] as bigint;
          const [b] = await batchCalls<{ hash: string; transactions: { hash: string; input: string }[] } | null>([
            { method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, true] },
          ]);
          for (const tx of b?.transactions ?? []) {
            inputs.set(tx.hash.toLowerCase(), { input: tx.input, blockHash: b?.hash.toLowerCase() ?? "" });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, numbers.length) }, worker));
      return inputs;
    },

    async getLogs(filter) {
      const body = await postForBytes({ jsonrpc: "2.0", id: ++id, method: "eth_getLogs", params: [filter] });
      const view = scanLogsReply(body);
      if (view) return view;
      // An error reply, or JSON laid out in a way the scanner does not read: parse it, then scan the
      // result re-serialized (which it always reads).
      let reply: { result?: unknown; error?: JsonRpcError };
      try {
        reply = parseJsonBody(body) as typeof reply;
      } catch {
        throw new RpcResponseError({ url, method: "eth_getLogs", details: "invalid JSON" });
      }
      if (reply?.error) throw answeredError("eth_getLogs", reply.error);
      const again = Array.isArray(reply?.result)
        ? scanLogsReply(Buffer.from(JSON.stringify({ result: reply.result }), "utf8"))
        : undefined;
      if (!again) throw new RpcResponseError({ url, method: "eth_getLogs", details: "not a list of logs" });
      return again;
    },

    async call<T>(method: string, params: unknown[]) {
      const [result] = await batchCalls<T>([{ method, params }]);
      return result as T;
    },

    batch: batchCalls,
  };
}
