/**
 * Test support: builds a chain history on an anvil node (chosen timestamps, gas limits and
 * transactions per block), and computes the daily statistics independently from the raw blocks,
 * one plain `eth_getBlockByNumber` at a time, to check the indexer against.
 */
import { httpRpc } from "@platform/chains";

/** One JSON-RPC call to the node at `url` (anvil's own methods included). */
export const rpc = <T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> =>
  httpRpc(url)<T>(method, params);

export interface PlannedBlock {
  timestamp: number;
  gasLimit?: number;
  txs?: number;
}

/** A JSON-RPC quantity (0x hex, no leading zeros). */
const quantity = (n: number | bigint) => `0x${n.toString(16)}`;
const SENDER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"; // anvil's first unlocked dev account
const RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** Mines one block per entry, in order (automine is switched off so transactions share blocks). */
export async function mineHistory(url: string, blocks: PlannedBlock[]): Promise<void> {
  await rpc(url, "evm_setAutomine", [false]);
  for (const b of blocks) {
    if (b.gasLimit) await rpc(url, "evm_setBlockGasLimit", [quantity(b.gasLimit)]);
    for (let i = 0; i < (b.txs ?? 0); i++) {
      await rpc(url, "eth_sendTransaction", [{ from: SENDER, to: RECEIVER, value: "0x1", gas: "0x5208" }]);
    }
    await rpc(url, "anvil_setNextBlockTimestamp", [quantity(b.timestamp)]);
    await rpc(url, "evm_mine", []);
  }
}

interface RawBlock {
  number: string;
  timestamp: string;
  gasLimit: string;
  gasUsed: string;
  size: string;
  transactions: unknown[];
}

export interface ExpectedDay {
  UTCDate: string;
  unixTimeStamp: string;
  blockCount: number;
  gasLimit: string;
  gasUsed: string;
  blockSize_bytes: number;
  transactionCount: number;
  blockTime_sec: string | undefined;
  networkUtilization: string;
}

/** Daily figures computed from every block `from..head` (the block before `from`, if any, gives its time). */
export async function expectedDays(url: string, from = 0): Promise<ExpectedDay[]> {
  const head = Number(await rpc<string>(url, "eth_blockNumber"));
  const blocks: RawBlock[] = [];
  for (let n = Math.max(0, from - 1); n <= head; n++)
    blocks.push(await rpc<RawBlock>(url, "eth_getBlockByNumber", [quantity(n), false]));
  const days = new Map<
    string,
    { count: number; limit: number; used: number; size: number; txs: number; dt: number; dtn: number }
  >();
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i] as RawBlock;
    if (Number(b.number) < from) continue;
    const ts = Number(b.timestamp);
    const day = new Date(ts * 1000).toISOString().slice(0, 10);
    const d = days.get(day) ?? { count: 0, limit: 0, used: 0, size: 0, txs: 0, dt: 0, dtn: 0 };
    d.count++;
    d.limit += Number(b.gasLimit);
    d.used += Number(b.gasUsed);
    d.size += Number(b.size);
    d.txs += b.transactions.length;
    const parent = blocks[i - 1];
    if (parent && Number(b.number) > from) {
      d.dt += ts - Number(parent.timestamp);
      d.dtn++;
    }
    days.set(day, d);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, d]) => ({
      UTCDate: day,
      unixTimeStamp: String(Date.parse(`${day}T00:00:00Z`) / 1000),
      blockCount: d.count,
      gasLimit: String(Math.round(d.limit / d.count)),
      gasUsed: String(d.used),
      blockSize_bytes: Math.round(d.size / d.count),
      transactionCount: d.txs,
      blockTime_sec: d.dtn ? (Math.round((d.dt * 100) / d.dtn) / 100).toFixed(2) : undefined,
      networkUtilization: (Math.round((d.used * 10_000) / d.limit) / 10_000).toFixed(4),
    }));
}
