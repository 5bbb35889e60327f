/**
 * Help for bulk writes through `Queryable.copyFrom`, which takes PostgreSQL's COPY text format: one
 * line per row, tab-separated fields, `\N` for null, backslash escapes in text. COPY parses several
 * times faster than the same rows sent as unnest() arrays (see bench/crosschain). Hot paths build their
 * lines themselves; this module gives the one field that needs care, bytea.
 *
 * @example
 * await tx.copyFrom("COPY t (id, hash) FROM STDIN", `1\t${copyHexField("0xabcd")}\n`);
 */

/**
 * A `0x…` hex string as a finished COPY text field of type bytea: bytea's hex input form is `\x…`,
 * and COPY's own escaping doubles the backslash (hex itself needs no escaping).
 */
export const copyHexField = (hex: string): string => `\\\\x${hex.startsWith("0x") ? hex.slice(2) : hex}`;
