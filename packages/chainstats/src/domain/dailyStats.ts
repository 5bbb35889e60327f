/**
 * The `module=stats` daily actions that block headers support, with Etherscan's field names and value
 * types (strings or numbers, as the anchor's responses show). Each record is computed from one daily
 * rollup row. Averages are rounded half up to an integer (gasLimit, blockSize_bytes), or to 2
 * (blockTime_sec) and 4 (networkUtilization) decimals. A day without blocks has no record.
 */
import { dayStartSec } from "./dates.ts";

export interface DailyRow {
  day: string;
  block_count: string;
  gas_limit_sum: string;
  gas_used_sum: string;
  size_sum: string;
  tx_count: string;
  block_time_sum: string;
  block_time_count: string;
}

/** Rounds num/den half up to `decimals` places, as a decimal string. */
export function divideRounded(num: bigint, den: bigint, decimals = 0): string {
  if (den === 0n) throw new RangeError("division by zero");
  const scale = 10n ** BigInt(decimals);
  const q = (2n * num * scale + den) / (2n * den);
  if (decimals === 0) return q.toString();
  const s = q.toString().padStart(decimals + 1, "0");
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

type Fields = Record<string, string | number>;

const n = (v: string) => BigInt(v);

/** The action names this API serves, each with how its fields come from a daily row (undefined = no record). */
export const DAILY_ACTIONS: Record<string, (row: DailyRow) => Fields | undefined> = {
  dailyavggaslimit: (r) => ({ gasLimit: divideRounded(n(r.gas_limit_sum), n(r.block_count)) }),
  dailygasused: (r) => ({ gasUsed: r.gas_used_sum }),
  dailyblkcount: (r) => ({ blockCount: Number(r.block_count) }),
  dailyavgblocksize: (r) => ({ blockSize_bytes: Number(divideRounded(n(r.size_sum), n(r.block_count))) }),
  dailyavgblocktime: (r) =>
    n(r.block_time_count) === 0n
      ? undefined
      : { blockTime_sec: divideRounded(n(r.block_time_sum), n(r.block_time_count), 2) },
  dailytx: (r) => ({ transactionCount: Number(r.tx_count) }),
  dailynetutilization: (r) =>
    n(r.gas_limit_sum) === 0n
      ? undefined
      : { networkUtilization: divideRounded(n(r.gas_used_sum), n(r.gas_limit_sum), 4) },
};

export type DailyAction = keyof typeof DAILY_ACTIONS;

export const isDailyAction = (action: string): action is DailyAction => Object.hasOwn(DAILY_ACTIONS, action);

/** `[{UTCDate, unixTimeStamp, ...fields}]` for the rows, in the order given. */
export function dailyRecords(action: DailyAction, rows: readonly DailyRow[]) {
  const compute = DAILY_ACTIONS[action] as (row: DailyRow) => Fields | undefined;
  const out: ({ UTCDate: string; unixTimeStamp: string } & Fields)[] = [];
  for (const row of rows) {
    if (n(row.block_count) === 0n) continue;
    const fields = compute(row);
    if (fields) out.push({ UTCDate: row.day, unixTimeStamp: String(dayStartSec(row.day)), ...fields });
  }
  return out;
}
