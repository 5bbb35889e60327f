/**
 * Quote timestamps, quote blocks and fill deadlines of a fee quote.
 *
 * Validation returns typed results (never throws and never builds HTTP errors): the HTTP layer maps a
 * failure to its `INVALID_PARAM` error body.
 */

/** Default `fillDeadline - quoteTimestamp` (the anchor's `FILL_DEADLINE_BUFFER_SECONDS` default). */
export const DEFAULT_FILL_DEADLINE_BUFFER_SEC = 7200;
/** How far a requested quote timestamp may lag the current block time. */
export const DEFAULT_QUOTE_TIMESTAMP_MAX_AGE_SEC = 600;
/** Blocks subtracted from the latest hub block for a default quote block. */
export const DEFAULT_QUOTE_BLOCK_BUFFER = 25;
/** On-chain SpokePool `depositQuoteTimeBuffer` of production deployments. */
export const SPOKE_QUOTE_TIME_BUFFER_SEC = 3600;
/** On-chain SpokePool `fillDeadlineBuffer` of production deployments. */
export const SPOKE_FILL_DEADLINE_BUFFER_SEC = 21600;

/** The fill deadline buffer of a destination chain: per-chain override, else the default (7200 s). */
export function fillDeadlineBufferSec(
  destinationChainId: number | string,
  overrides?: Readonly<Record<string, number>>,
  defaultBufferSec = DEFAULT_FILL_DEADLINE_BUFFER_SEC,
): number {
  return overrides?.[String(destinationChainId)] ?? defaultBufferSec;
}

/** `fillDeadline = quoteTimestamp + bufferSec`. */
export function computeFillDeadline(quoteTimestamp: number, bufferSec = DEFAULT_FILL_DEADLINE_BUFFER_SEC): number {
  return quoteTimestamp + bufferSec;
}

/**
 * Default quote block: `floor((latestBlock - buffer) / precision) * precision` (precision defaults to the
 * buffer), so that concurrent quotes share a block and relayers hit their caches.
 */
export function computeQuoteBlock(
  latestBlock: number,
  buffer = DEFAULT_QUOTE_BLOCK_BUFFER,
  precision: number = buffer,
): number {
  const p = precision > 0 ? precision : 1;
  return Math.max(0, Math.floor((latestBlock - buffer) / p) * p);
}

/** Why a requested quote timestamp was refused. */
export type QuoteTimestampErrorReason = "INVALID_TIMESTAMP" | "TIMESTAMP_IN_FUTURE" | "TIMESTAMP_TOO_OLD";

/** A refused quote timestamp, ready to be mapped to `INVALID_PARAM` with `param: "timestamp"`. */
export interface QuoteTimestampError {
  code: "INVALID_PARAM";
  reason: QuoteTimestampErrorReason;
  param: "timestamp";
  message: string;
}

/** Result of {@link validateQuoteTimestamp}. */
export type QuoteTimestampCheck = { ok: true; timestamp: number } | { ok: false; error: QuoteTimestampError };

const refuse = (reason: QuoteTimestampErrorReason, message: string): QuoteTimestampCheck => ({
  ok: false,
  error: { code: "INVALID_PARAM", reason, param: "timestamp", message },
});

/**
 * Validate a caller-supplied quote timestamp against the current (hub) block time: a positive integer,
 * not after `currentBlockTimestamp`, and at most `maxAgeSec` (default 600 s) before it.
 */
export function validateQuoteTimestamp(
  requested: number | string,
  currentBlockTimestamp: number,
  maxAgeSec = DEFAULT_QUOTE_TIMESTAMP_MAX_AGE_SEC,
): QuoteTimestampCheck {
  const text = typeof requested === "number" ? String(requested) : requested.trim();
  if (!/^\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) {
    return refuse("INVALID_TIMESTAMP", "Provided timestamp must be a positive integer (seconds)");
  }
  const timestamp = Number(text);
  if (timestamp > currentBlockTimestamp) {
    return refuse("TIMESTAMP_IN_FUTURE", "Provided timestamp can not be in the future");
  }
  if (currentBlockTimestamp - timestamp > maxAgeSec) {
    return refuse("TIMESTAMP_TOO_OLD", `Provided timestamp can not be more than ${maxAgeSec} seconds in the past`);
  }
  return { ok: true, timestamp };
}

/** Why the SpokePool would revert a deposit's times (its custom error names). */
export type DepositTimesError = "InvalidQuoteTimestamp" | "InvalidFillDeadline";

/** Inputs of {@link checkDepositTimes}. */
export interface DepositTimesInput {
  quoteTimestamp: number;
  fillDeadline: number;
  /** Origin chain block time of the deposit. */
  now: number;
  quoteTimeBufferSec?: number;
  fillDeadlineBufferSec?: number;
}

/**
 * The SpokePool's deposit checks: `now - quoteTimeBuffer ≤ quoteTimestamp ≤ now` and
 * `fillDeadline ≤ now + fillDeadlineBuffer`. Returns the revert reason, or null when the deposit passes.
 */
export function checkDepositTimes(input: DepositTimesInput): DepositTimesError | null {
  const quoteBuffer = input.quoteTimeBufferSec ?? SPOKE_QUOTE_TIME_BUFFER_SEC;
  const fillBuffer = input.fillDeadlineBufferSec ?? SPOKE_FILL_DEADLINE_BUFFER_SEC;
  if (input.quoteTimestamp > input.now || input.quoteTimestamp < input.now - quoteBuffer)
    return "InvalidQuoteTimestamp";
  if (input.fillDeadline > input.now + fillBuffer) return "InvalidFillDeadline";
  return null;
}
