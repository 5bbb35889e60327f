/**
 * PKCE (RFC 7636) with S256 only: `plain` adds nothing over no PKCE, and RFC 9700 §2.1.1 recommends S256.
 */
import { createHash } from "node:crypto";
import { hashesEqual } from "./secrets.ts";

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A S256 challenge: base64url of a SHA-256, 43 characters. */
export const CODE_CHALLENGE_S256 = /^[A-Za-z0-9\-_]{43}$/;

/** Whether `verifier` hashes to `challenge` (constant-time). */
export function verifierMatchesChallenge(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  return hashesEqual(computed, Buffer.from(challenge));
}
