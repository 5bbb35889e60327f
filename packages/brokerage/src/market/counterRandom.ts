/**
 * Counter-based randomness: a number is a pure function of its key (seed, symbol, counter, stream), so
 * any draw can be made without making the ones before it, in any order, on any machine. The mixer is
 * splitmix32's finalizer (the MurmurHash3 `fmix32` avalanche) absorbing one 32-bit word at a time; it is not
 * cryptographic, only well distributed, and fast in 32-bit integer arithmetic (`Math.imul`).
 */

const GOLDEN_GAMMA = 0x9e3779b9;
const TWO_POW_32 = 4_294_967_296;

/** splitmix32's avalanche: every input bit flips about half of the output bits. */
export function mix32(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A string's 32-bit hash (UTF-16 code units, FNV-1a, then avalanched). */
export function hashString32(text: string, salt = 0): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** A random source's identity: the seed and the symbol it draws for, already hashed. */
export interface RandomKey {
  seed: number;
  symbol: number;
}

/** The key of a (seed, symbol) pair; a numeric seed and its decimal string are the same seed. */
export const randomKey = (seed: string | number, symbol: string): RandomKey => ({
  seed: hashString32(String(seed)),
  symbol: hashString32(symbol, GOLDEN_GAMMA),
});

/**
 * 32 random bits for (key, counter, stream). `counter` is a non-negative integer below 2^53 (e.g. a step
 * index); `stream` separates independent uses of the same counter (bridge noise, quote sizes, trades).
 */
export function randomBits(key: RandomKey, counter: number, stream: number): number {
  // A sponge: each word is xored in and avalanched; each step is a bijection, so distinct counters under
  // the same prefix never collide.
  let h = mix32(key.seed ^ GOLDEN_GAMMA);
  h = mix32(h ^ key.symbol);
  h = mix32(h ^ Math.imul(stream + 1, GOLDEN_GAMMA));
  h = mix32(h ^ Math.floor(counter / TWO_POW_32));
  h = mix32(h ^ (counter >>> 0));
  return mix32(h + GOLDEN_GAMMA);
}

/** A uniform number in [0, 1) with 53 random bits. */
export function randomUniform(key: RandomKey, counter: number, stream: number): number {
  const high = randomBits(key, counter, stream) >>> 5; // 27 bits
  const low = randomBits(key, counter, stream + 0x1000) >>> 6; // 26 bits
  return (high * 67_108_864 + low) / 9_007_199_254_740_992;
}

/** A standard normal number (Box–Muller on two independent uniforms). */
export function randomNormal(key: RandomKey, counter: number, stream: number): number {
  const u1 = 1 - randomUniform(key, counter, stream); // (0, 1]: the logarithm stays finite
  const u2 = randomUniform(key, counter, stream + 0x2000);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
