/**
 * Hashes, addresses and calldata are `0x…` hex strings in code and bytea in the database. Both drivers
 * read bytea as a Buffer (see typeParsers.ts); these are the conversions at that boundary, one name each.
 */

/** A bytea value read from the database as a `0x…` hex string (lower case). */
export const byteaToHex = (bytes: Uint8Array): `0x${string}` => `0x${Buffer.from(bytes).toString("hex")}`;

/** A `0x…` hex string as a bytea query parameter. */
export const hexToBytea = (hex: string): Buffer => Buffer.from(hexDigits(hex), "hex");

/**
 * The digits of a hex string without its `0x`, for SQL that decodes text itself (`decode($1, 'hex')`, as
 * `unnest` of a text array needs).
 */
export const hexDigits = (hex: string): string => (hex.startsWith("0x") ? hex.slice(2) : hex);
