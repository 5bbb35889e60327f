/**
 * `estimatedFillTimeSec` from our own fills. The anchor looks the fill time up in a table of p75 fill
 * times per route and token computed from its history (reference §2.6); we compute the same table from
 * the deposits and fills we indexed: per (origin chain, destination chain, input token symbol) with at
 * least MIN_FILLS fills in the last WINDOW, the 75th percentile of fill block time − deposit block time.
 * Routes without enough fills keep the anchor's default (10 s). Refreshed in the background every minute.
 */
import { byteaToHex, type Database, type Logger } from "@platform/kernel";
import { findToken, type SpokeChain } from "../deployments.ts";
import type { FillTimeConfig, FillTimeRow } from "../domain/fees/fillTime.ts";
import { MAX_UINT256 } from "../domain/fees/fixedPoint.ts";

const FILL_TIME_WINDOW_SEC = 7 * 24 * 3600;
const MIN_FILLS = 5;
const FILL_TIME_REFRESH_MS = 60_000;

/** The p75 fill time table of the last `windowSec` (seconds, rounded up, at least 1). */
export async function readObservedFillTimes(
  db: Database,
  chains: readonly SpokeChain[],
  nowSec: number,
  windowSec = FILL_TIME_WINDOW_SEC,
): Promise<FillTimeRow[]> {
  const rows = await db.query<{
    origin_chain_id: string;
    destination_chain_id: string;
    input_token: Buffer;
    p75: number;
  }>(
    `SELECT d.origin_chain_id, d.destination_chain_id, d.input_token,
            percentile_cont(0.75) WITHIN GROUP (ORDER BY GREATEST(f.block_timestamp - d.block_timestamp, 0)) AS p75
       FROM crosschain.fills f JOIN crosschain.deposits d ON d.relay_hash = f.relay_hash
      WHERE f.block_timestamp >= $1
      GROUP BY d.origin_chain_id, d.destination_chain_id, d.input_token
     HAVING count(*) >= $2`,
    [nowSec - windowSec, MIN_FILLS],
  );
  const table: FillTimeRow[] = [];
  for (const r of rows) {
    // input_token is bytes32: the address is its last 20 bytes.
    const symbol = findToken(chains, Number(r.origin_chain_id), byteaToHex(r.input_token.subarray(-20)))?.symbol;
    if (!symbol) continue;
    table.push({
      originChains: [String(r.origin_chain_id)],
      destinationChains: [String(r.destination_chain_id)],
      tokenGroups: [symbol.toUpperCase()],
      maxSizeUsd: MAX_UINT256,
      fillTimeSec: Math.max(1, Math.ceil(Number(r.p75))),
    });
  }
  return table;
}

/** Keeps the observed table current; `config()` never waits (the last table read, or none yet). */
export function createObservedFillTimes(db: Database, chains: readonly SpokeChain[], logger?: Logger) {
  let table: FillTimeRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  const refresh = async () => {
    try {
      table = await readObservedFillTimes(db, chains, Math.floor(Date.now() / 1000));
    } catch (error) {
      logger?.warn({ err: (error as Error).message }, "fill-time table not refreshed");
    }
  };
  return {
    refresh,
    /** The table as a fill-time configuration (empty before the first refresh: defaults apply). */
    config: (): FillTimeConfig => ({ table }),
    start() {
      if (timer) return;
      void refresh();
      timer = setInterval(refresh, FILL_TIME_REFRESH_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

export type ObservedFillTimes = ReturnType<typeof createObservedFillTimes>;
