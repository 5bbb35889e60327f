/**
 * End users' passwords: argon2id (RFC 9106), the memory-hard function OWASP recommends, at its minimum
 * profile (19 MiB, 2 passes, 1 lane): ~50 ms here. It runs as WebAssembly (hash-wasm, already a dependency
 * of chains), so there is no native build. Stored in the PHC string format, so the parameters can be raised
 * later and old hashes still verify. Verification recomputes the hash and compares in constant time.
 *
 * @example
 * const stored = await hashPassword("correct horse");
 * await verifyPassword("correct horse", stored); // true
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { argon2id } from "hash-wasm";

/** OWASP Password Storage Cheat Sheet, argon2id minimum configuration. */
export const ARGON2ID_PARAMETERS = { memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;

/** Longest password accepted: argon2 takes any length, but an unbounded input is a denial-of-service lever. */
export const MAX_PASSWORD_LENGTH = 256;

export async function hashPassword(password: string): Promise<string> {
  return argon2id({ password, salt: randomBytes(16), ...ARGON2ID_PARAMETERS, outputType: "encoded" });
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
const unpadded = (b64: string) => Buffer.from(b64, "base64");

/** Whether `password` matches the stored PHC string; false for a malformed hash, never a throw. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = PHC.exec(stored);
  if (!m || password.length > MAX_PASSWORD_LENGTH) return false;
  const expected = unpadded(m[5] as string);
  const actual = await argon2id({
    password,
    salt: unpadded(m[4] as string),
    memorySize: Number(m[1]),
    iterations: Number(m[2]),
    parallelism: Number(m[3]),
    hashLength: expected.length,
    outputType: "binary",
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
