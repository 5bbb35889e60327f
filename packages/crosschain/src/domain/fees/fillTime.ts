import { parseFixed } from "./fixedPoint.ts";

/**
 * Estimated fill time (`estimatedFillTimeSec`).
 *
 * Above `maxDepositInstant` a relayer must first rebalance: 900 s (Polygon 1800 s). Otherwise the first
 * row of a p75 fill-time table matching the route, token and USD size, scanned from the most specific
 * to the least specific (chain wildcard `"0"`, token group `"OTHER"`); 10 s when nothing matches.
 */

/** The chain wildcard of the fill-time table. */
export const CHAIN_WILDCARD = "0";
/** The catch-all token group of the fill-time table. */
export const OTHER_TOKEN = "OTHER";
/** Fill time when no table row matches. */
export const DEFAULT_FILL_TIME_SEC = 10;
/** Rebalance time when the amount exceeds the instant limit. */
export const DEFAULT_REBALANCE_TIME_SEC = 900;
/** Per-destination rebalance times (Polygon takes longer). */
export const DEFAULT_REBALANCE_TIME_OVERRIDES: Readonly<Record<string, number>> = Object.freeze({ "137": 1800 });

/** One table row. Chain ids are decimal strings; token groups are upper-case symbols or `OTHER`. */
export interface FillTimeRow {
  destinationChains: readonly string[];
  originChains: readonly string[];
  tokenGroups: readonly string[];
  /** Largest USD size (1e18-scaled) this row covers. */
  maxSizeUsd: bigint;
  fillTimeSec: number;
}

/** A row of the anchor's `fill-times-preset.json` (comma-separated lists, decimal strings). */
export interface RawFillTimeRow {
  destination_route_classification: string;
  origin_route_classification?: string;
  token_liquidity_groups: string;
  max_size_usd: string;
  p75_fill_time_secs?: string | number;
  p50_fill_time_secs?: string | number;
}

const splitList = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** Parse raw preset rows (p75, else p50). A row without an origin classification matches any origin. */
export function parseFillTimeRows(rows: readonly RawFillTimeRow[]): FillTimeRow[] {
  return rows.map((row) => ({
    destinationChains: splitList(row.destination_route_classification),
    originChains:
      row.origin_route_classification === undefined ? [CHAIN_WILDCARD] : splitList(row.origin_route_classification),
    tokenGroups: splitList(row.token_liquidity_groups).map((s) => s.toUpperCase()),
    maxSizeUsd: parseFixed(row.max_size_usd),
    fillTimeSec: Number(row.p75_fill_time_secs ?? row.p50_fill_time_secs),
  }));
}

/** Configuration of {@link estimateFillTimeSec}. */
export interface FillTimeConfig {
  /** Rows in any order; they are scanned by ascending `maxSizeUsd` (stable). */
  table: readonly FillTimeRow[];
  /** `overrides[originChainId][destinationChainId][SYMBOL]` beats the table when non-zero. */
  overrides?: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, number>>>>>>;
  /** Per destination chain; default {@link DEFAULT_REBALANCE_TIME_OVERRIDES}. */
  rebalanceTimes?: Readonly<Record<string, number>>;
  /** Default {@link DEFAULT_REBALANCE_TIME_SEC}. */
  defaultRebalanceTimeSec?: number;
  /** Default {@link DEFAULT_FILL_TIME_SEC}. */
  defaultFillTimeSec?: number;
}

/** The eight (destination, origin, token) lookups, most specific first. */
export function fillTimeOrderings(
  originChainId: string,
  destinationChainId: string,
  symbol: string,
): Array<{ dest: string; orig: string; token: string }> {
  const chainPairs = [
    [destinationChainId, originChainId],
    [CHAIN_WILDCARD, originChainId],
    [destinationChainId, CHAIN_WILDCARD],
    [CHAIN_WILDCARD, CHAIN_WILDCARD],
  ] as const;
  return chainPairs.flatMap(([dest, orig]) => [
    { dest, orig, token: symbol },
    { dest, orig, token: OTHER_TOKEN },
  ]);
}

/** Table lookup only (no rebalance rule): override, else first matching row, else the default. */
export function resolveFillTimeSec(
  config: FillTimeConfig,
  originChainId: number | string,
  destinationChainId: number | string,
  symbol: string,
  amountUsd: bigint,
): number {
  const orig = String(originChainId);
  const dest = String(destinationChainId);
  const override = config.overrides?.[orig]?.[dest]?.[symbol];
  if (override) return override;

  const rows = [...config.table].sort((a, b) =>
    a.maxSizeUsd < b.maxSizeUsd ? -1 : a.maxSizeUsd > b.maxSizeUsd ? 1 : 0,
  );
  for (const ordering of fillTimeOrderings(orig, dest, symbol.toUpperCase())) {
    const row = rows.find(
      (r) =>
        r.destinationChains.includes(ordering.dest) &&
        r.originChains.includes(ordering.orig) &&
        r.tokenGroups.includes(ordering.token) &&
        amountUsd <= r.maxSizeUsd,
    );
    if (row) return row.fillTimeSec;
  }
  return config.defaultFillTimeSec ?? DEFAULT_FILL_TIME_SEC;
}

/** Rebalance time for a destination chain. */
export function rebalanceTimeSec(
  config: Pick<FillTimeConfig, "rebalanceTimes" | "defaultRebalanceTimeSec">,
  destinationChainId: number | string,
): number {
  const times = config.rebalanceTimes ?? DEFAULT_REBALANCE_TIME_OVERRIDES;
  return times[String(destinationChainId)] ?? config.defaultRebalanceTimeSec ?? DEFAULT_REBALANCE_TIME_SEC;
}

/** Inputs of {@link estimateFillTimeSec}. */
export interface FillTimeInput {
  /** Input token units. */
  amount: bigint;
  maxDepositInstant: bigint;
  originChainId: number | string;
  destinationChainId: number | string;
  /** Input token symbol. */
  symbol: string;
  /** Deposit value in USD, 1e18-scaled. */
  amountUsd: bigint;
}

/** `estimatedFillTimeSec`: rebalance time when `amount > maxDepositInstant`, else the table lookup. */
export function estimateFillTimeSec(input: FillTimeInput, config: FillTimeConfig = { table: [] }): number {
  if (input.amount > input.maxDepositInstant) return rebalanceTimeSec(config, input.destinationChainId);
  return resolveFillTimeSec(config, input.originChainId, input.destinationChainId, input.symbol, input.amountUsd);
}
