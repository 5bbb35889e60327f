/**
 * Help for bulk writes through `Queryable.copyFrom`, which takes PostgreSQL's COPY text format: one
 * line per row, tab-separated fields, `\N` for null, backslash escapes in text. COPY parses several
 * times faster than the same rows sent as unnest() arrays (see bench/crosschain). Hot paths build their
 * lines themselves; this module gives the one field that needs care, bytea.
 *
 * @example
 * await tx.copyFrom("COPY t (id, hash) FROM STDIN", `1\t${copyHexField("0xabcd")}\n`);
 */
import { hexDigits } from "./bytea.ts";

/**
 * A `0x…` hex string as a finished COPY text field of type bytea: bytea's hex input form is `\x…`,
 * and COPY's own escaping doubles the backslash (hex itself needs no escaping).
 */
export const copyHexField = (hex: string): string => `\\\\x${hexDigits(hex)}`;

/**
 * COPY input gathered as bytes, line by line. Appending tens of thousands of lines to one JS string
 * builds a rope that must be flattened and UTF-8 encoded before it is sent (a tenth of a backfill's
 * main thread); here each line is copied once into a growing buffer. Lines must be ASCII (numbers,
 * hex, `copyHexField`): they are written as latin1.
 *
 * @example
 * const lines = createCopyLines();
 * lines.push(`1\t${copyHexField("0xabcd")}\n`);
 * await tx.copyFrom("COPY t (id, hash) FROM STDIN", lines.bytes());
 */
export function createCopyLines(initialBytes = 64 * 1024) {
  let buffer = Buffer.allocUnsafe(initialBytes);
  let length = 0;
  const reserve = (n: number): Buffer => {
    if (length + n > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, length + n));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    return buffer;
  };
  return {
    /** Appends one finished line (with its `\n`). */
    push(line: string) {
      reserve(line.length);
      length += buffer.write(line, length, "latin1");
    },
    /**
     * For writers of bytes: room for `n` more bytes at `length` of the returned buffer (which may be a
     * new one); `advance` then keeps what was written.
     */
    reserve,
    /** Keeps `n` bytes written after `length` into the buffer `reserve` returned. */
    advance(n: number) {
      if (length + n > buffer.length) throw new RangeError("advance past the reserved bytes");
      length += n;
    },
    get length() {
      return length;
    },
    /** The lines so far (a view, valid until the next push). */
    bytes(): Buffer {
      return buffer.subarray(0, length);
    },
  };
}

export type CopyLines = ReturnType<typeof createCopyLines>;
