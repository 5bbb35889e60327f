/**
 * Latency measurement for benchmarks that time events themselves (not autocannon): a summary of many samples,
 * and a wait for something to have happened.
 */

/** Latencies in ms: median, 99th percentile and maximum, to 0.1 ms. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

const tenth = (x: number) => Math.round(x * 10) / 10;

/** The summary of `values` (nearest-rank percentiles). */
export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  return { count: sorted.length, p50: tenth(rank(0.5)), p99: tenth(rank(0.99)), max: tenth(sorted.at(-1) ?? 0) };
}

/** Waits until `done()` holds, checking every 5 ms; false after `timeoutMs`. */
export async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > until) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}
