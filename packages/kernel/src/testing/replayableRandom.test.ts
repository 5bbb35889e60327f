import { afterEach, expect, it } from "vitest";
import { replayableRandom } from "./replayableRandom.ts";

const saved = process.env.KILL_TEST_SEED;
afterEach(() => {
  if (saved === undefined) delete process.env.KILL_TEST_SEED;
  else process.env.KILL_TEST_SEED = saved;
});

const draws = (n: number) => {
  const random = replayableRandom();
  return { seed: random.seed, values: Array.from({ length: n }, () => random.next()) };
};

it("replays the same draws from KILL_TEST_SEED, and others from another seed", () => {
  process.env.KILL_TEST_SEED = "12345";
  const first = draws(50);
  expect(first.seed).toBe(12345);
  expect(draws(50).values).toEqual(first.values);
  process.env.KILL_TEST_SEED = "12346";
  expect(draws(50).values).not.toEqual(first.values);
  for (const v of first.values) {
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThan(1);
  }
  expect(new Set(first.values).size).toBe(50);
});

it("draws a seed when none is given, and replays it when given back", () => {
  delete process.env.KILL_TEST_SEED;
  const drawn = draws(10);
  process.env.KILL_TEST_SEED = String(drawn.seed);
  expect(draws(10)).toEqual(drawn);
});

it("refuses a seed that is not an integer", () => {
  process.env.KILL_TEST_SEED = "soon";
  expect(() => replayableRandom()).toThrow(/KILL_TEST_SEED must be an integer/);
});
