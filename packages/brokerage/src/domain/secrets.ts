/**
 * High-entropy random secrets (authorization codes, access tokens, client secrets, session ids, key-pair
 * secrets) and how they are kept: only their SHA-256 hash is stored. A fast hash is enough for 256 random
 * bits (there is nothing to brute-force); passwords, which are low-entropy, use `passwords.ts` instead.
 *
 * @example
 * const token = randomSecret();          // 43 characters of base64url (256 bits)
 * await tokens.insert({ tokenHash: hashSecret(token), … });
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 256 random bits as 43 base64url characters (safe in URLs, forms and headers as they are). */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString("base64url");

/** Random characters of [A-Z0-9] (Alpaca-style key ids such as `PK…`, account numbers). */
export function randomUpperAlphanumeric(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const bytes = randomBytes(length * 2);
  let out = "";
  // 252 = 7 × 36: bytes at or above it are skipped so every character is equally likely.
  for (const b of bytes) if (b < 252 && out.length < length) out += alphabet[b % 36];
  return out.length === length ? out : out + randomUpperAlphanumeric(length - out.length);
}

/** What is stored for a secret: its SHA-256. */
export const hashSecret = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest();

/** Constant-time comparison of two hashes (false when their lengths differ). */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time check of a presented secret against a stored hash. */
export const secretMatches = (presented: string, storedHash: Uint8Array): boolean =>
  hashesEqual(hashSecret(presented), storedHash);
