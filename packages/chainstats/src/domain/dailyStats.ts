/**
 * The `module=stats` daily actions that block headers support, with Etherscan's field names and value
 * types (strings or numbers, as the anchor's responses show). Each day's finished record is a stored
 * generated column of the rollup row (`migrations/0002_daily_records.sql`), so a query concatenates at
 * most one record per day:
 *
 * | action | field | value |
 * |---|---|---|
 * | dailyavggaslimit | gasLimit | string: sum(gasLimit)/blocks, rounded half up to an integer |
 * | dailygasused | gasUsed | string: sum(gasUsed) |
 * | dailyblkcount | blockCount | number of blocks |
 * | dailyavgblocksize | blockSize_bytes | number: average size, rounded |
 * | dailyavgblocktime | blockTime_sec | string: average seconds since the parent block, 2 decimals |
 * | dailytx | transactionCount | number: sum of transaction counts |
 * | dailynetutilization | networkUtilization | string: sum(gasUsed)/sum(gasLimit), 4 decimals |
 *
 * Every record starts with `UTCDate` (yyyy-MM-dd) and `unixTimeStamp` (00:00 UTC of the day, a string).
 * A day without blocks (or, for block time, without a known parent) has no record.
 */
export const DAILY_ACTIONS = [
  "dailyavggaslimit",
  "dailygasused",
  "dailyblkcount",
  "dailyavgblocksize",
  "dailyavgblocktime",
  "dailytx",
  "dailynetutilization",
] as const;

export type DailyAction = (typeof DAILY_ACTIONS)[number];

export const isDailyAction = (action: string): action is DailyAction =>
  (DAILY_ACTIONS as readonly string[]).includes(action);

/** The rollup column holding the action's finished record (a fixed identifier, safe in SQL). */
export const recordColumn = (action: DailyAction) => `rec_${action}`;
