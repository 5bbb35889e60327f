/**
 * Strings that break naive parsers, queries and templates: control characters, NUL, lone surrogates,
 * path traversal, SQL, HTML and format metacharacters, numbers a JavaScript parser reads oddly, and big ones.
 */
import fc from "fast-check";

const HOSTILE = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\r\n",
  "\t",
  "../../../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "%",
  "%zz",
  "'",
  '"',
  "' OR '1'='1",
  "1; DROP TABLE users;--",
  "\\",
  "$1",
  "$" + "{7*7}", // a template placeholder, on purpose
  "{{7*7}}",
  "%s%n%x",
  "<script>alert(1)</script>",
  "&amp;",
  "\ud800",
  "\udfff",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "\ufeff",
  "👩‍👩‍👧‍👦",
  "ß\u0130\u0131",
  "NaN",
  "Infinity",
  "-0",
  "1e309",
  "0x1f",
  "9".repeat(400),
  "-9223372036854775809",
  "null",
  "true",
  "[]",
  "{}",
  "__proto__",
  "constructor",
];

/** A hostile string, short. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE), weight: 4 },
    { arbitrary: fc.string({ unit: "binary", maxLength: 24 }), weight: 2 },
    { arbitrary: fc.string({ unit: "grapheme", maxLength: 24 }), weight: 1 },
  );

/**
 * A big string of `size` characters (a repeated hostile one, so it is also odd). Query strings and headers
 * stay under Node's 16 KiB header limit, which answers 431 before any service runs; bodies go to 100 KB.
 */
export const hugeString = (size: number): fc.Arbitrary<string> =>
  fc.constantFrom("a", "é", "\u0000", "'", "9", "👍").map((unit) => unit.repeat(Math.ceil(size / unit.length)));

/** Latin-1 printable text: what Node lets a client put in a header value. */
export const headerString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom("", " ", "null", "Bearer", "Bearer ", "Basic Og==", "Bearer a b", "x".repeat(8000), "é\u00ff"),
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  );
