import { randomInt } from "node:crypto";
import { onTestFailed } from "vitest";

/** A replayable source of random numbers in [0, 1), and the seed that replays it. */
export interface ReplayableRandom {
  seed: number;
  next(): number;
}

/**
 * Random numbers for a test's timings (when to kill a child, how long to wait) that a failed run can
 * replay: seeded from `KILL_TEST_SEED` when it is set, else at random, and the seed is printed when the
 * test fails. Replaying gives the same draws; the instants they land on still depend on the machine.
 * Call it inside the test: it registers the test's failure hook.
 */
export function replayableRandom(envVar = "KILL_TEST_SEED"): ReplayableRandom {
  const given = process.env[envVar];
  const seed = given ? Number(given) : randomInt(2 ** 31);
  if (!Number.isSafeInteger(seed)) throw new Error(`${envVar} must be an integer (got "${given}")`);
  onTestFailed(() => {
    console.error(`These random timings replay with ${envVar}=${seed}`);
  });
  return { seed, next: mulberry32(seed) };
}

/** A small, well-mixed 32-bit generator (Mulberry32): the same seed gives the same sequence. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
