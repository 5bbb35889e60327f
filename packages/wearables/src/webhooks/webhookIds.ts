/**
 * Ids of webhook messages and attempts in Svix's form: a prefix and a KSUID-like body (4 bytes of seconds
 * since 2014-05-13, as KSUID counts, then 16 random bytes, in 27 base62 characters), so they sort by time.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KSUID_EPOCH_SEC = 1_400_000_000;

function ksuid(nowMs: number): string {
  const bytes = Buffer.alloc(20);
  bytes.writeUInt32BE(Math.max(0, Math.floor(nowMs / 1000) - KSUID_EPOCH_SEC), 0);
  randomBytes(16).copy(bytes, 4);
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(27, "0");
}

/** `msg_…`: the `webhook-id` receivers see, the same on every attempt. */
export const newMessageId = (nowMs = Date.now()) => `msg_${ksuid(nowMs)}`;
/** `atmpt_…`: one delivery attempt. */
export const newAttemptId = (nowMs = Date.now()) => `atmpt_${ksuid(nowMs)}`;
