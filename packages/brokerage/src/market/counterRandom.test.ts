import { describe, expect, it } from "vitest";
import { hashString32, mix32, randomBits, randomKey, randomNormal, randomUniform } from "./counterRandom.ts";

const key = randomKey("test-seed", "AAPL");
const N = 100_000;

describe("counter-based randomness", () => {
  it("is a pure function of its key, counter and stream", () => {
    expect(randomBits(randomKey("test-seed", "AAPL"), 42, 1)).toBe(randomBits(key, 42, 1));
    expect(randomKey(7, "X")).toEqual(randomKey("7", "X"));
    const variants = [
      randomBits(key, 42, 1),
      randomBits(key, 43, 1),
      randomBits(key, 42, 2),
      randomBits(randomKey("other-seed", "AAPL"), 42, 1),
      randomBits(randomKey("test-seed", "MSFT"), 42, 1),
      randomBits(key, 42 + 2 ** 32, 1), // the counter's high word counts too
    ];
    expect(new Set(variants).size).toBe(variants.length);
  });

  it("hashes strings and mixes words into 32-bit unsigned values", () => {
    expect(hashString32("AAPL")).not.toBe(hashString32("AAPL", 1));
    expect(mix32(0)).toBe(0);
    expect(mix32(1)).toBeGreaterThan(0);
    expect(mix32(-1)).toBeLessThan(2 ** 32);
  });

  it("draws uniforms that fill [0, 1) evenly (chi-square over 64 buckets)", () => {
    const buckets = new Array<number>(64).fill(0);
    let sum = 0;
    let sumSquares = 0;
    let outside = 0;
    for (let i = 0; i < N; i++) {
      const u = randomUniform(key, i, 3);
      if (!(u >= 0 && u < 1)) outside++;
      buckets[Math.floor(u * 64)]!++;
      sum += u;
      sumSquares += u * u;
    }
    expect(outside).toBe(0);
    const expected = N / 64;
    const chiSquare = buckets.reduce((acc, count) => acc + (count - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(103.4); // 99.9th percentile of chi-square with 63 degrees of freedom
    expect(sum / N).toBeCloseTo(0.5, 2);
    expect(sumSquares / N - (sum / N) ** 2).toBeCloseTo(1 / 12, 2);
  });

  it("draws standard normals, uncorrelated from one counter to the next", () => {
    const draws = Array.from({ length: N }, (_, i) => randomNormal(key, i, 5));
    const mean = draws.reduce((a, b) => a + b, 0) / N;
    const variance = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / N;
    const kurtosis = draws.reduce((a, b) => a + (b - mean) ** 4, 0) / N / variance ** 2;
    let lagged = 0;
    for (let i = 1; i < N; i++) lagged += (draws[i]! - mean) * (draws[i - 1]! - mean);
    expect(Math.abs(mean)).toBeLessThan(0.015);
    expect(variance).toBeCloseTo(1, 1);
    expect(kurtosis).toBeCloseTo(3, 0);
    expect(Math.abs(lagged / (N - 1) / variance)).toBeLessThan(0.015);
    expect(draws.every(Number.isFinite)).toBe(true);
  });
});
