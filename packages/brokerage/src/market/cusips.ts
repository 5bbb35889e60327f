/**
 * CUSIPs of our listings. The market is simulated (its prices are made up), so its identifiers are too, but
 * well formed and stable: nine characters, a private-use issuer number (`99` and four characters drawn from
 * the symbol's SHA-256), issue `10` (an equity issue), and the check digit of the CUSIP standard (ANSI X9.6:
 * "double add double", modulus 10). A symbol always has the same CUSIP, on every instance.
 */
import { createHash } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The check digit of the first eight characters of a CUSIP. */
export function cusipCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    let value = ALPHABET.indexOf(body[i] as string);
    if (value < 0) throw new Error(`not a CUSIP character: ${body[i]}`);
    if (i % 2 === 1) value *= 2;
    sum += Math.floor(value / 10) + (value % 10);
  }
  return String((10 - (sum % 10)) % 10);
}

/** The CUSIP of one of our equity listings. */
export function cusipOf(symbol: string): string {
  const digest = createHash("sha256").update(symbol, "utf8").digest();
  const issuer = `99${[...digest.subarray(0, 4)].map((byte) => ALPHABET[byte % ALPHABET.length]).join("")}`;
  const body = `${issuer}10`;
  return body + cusipCheckDigit(body);
}
