/**
 * Values aimed just outside what a schema accepts: the wrong type, a bound plus or minus one, a length past
 * its maximum, a broken format, a value beside the enumeration, and hostile strings. A few may happen to be
 * valid (a hostile string against a free-form string): the service must answer them well too.
 */
import fc from "fast-check";
import { hostileString, hugeString } from "./hostileStrings.ts";
import type { Schema } from "./openapiOperations.ts";

const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** Values of every JSON type, one of which is the wrong one. */
const wrongType = (): fc.Arbitrary<unknown> =>
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, "", "x", [], [1, "a"], {}, { a: { b: null } });

const BAD_FORMATS: Record<string, string[]> = {
  uuid: ["00000000-0000-0000-0000-00000000000", "not-a-uuid", "00000000-0000-0000-0000-000000000000g", "{}"],
  "date-time": ["2024-13-45T25:61:61Z", "yesterday", "2024-02-30T00:00:00Z", "+275760-09-13T00:00:00.001Z", "0"],
  date: ["2024-13-45", "2024-02-30", "20240101", "0000-00-00", "99999-01-01"],
  email: ["@", "a@", "a@b", "a@@b.c", "a b@c.d"],
  uri: ["http://", "::", "javascript:alert(1)", "//x"],
};

/** Numbers past the schema's bounds, and numbers no bound was written for. */
function outOfBounds(schema: Schema): fc.Arbitrary<unknown> {
  const edges: unknown[] = [Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 1e21, -1, 0, 0.5, -0.0];
  const min = num(schema.minimum) ?? num(schema.exclusiveMinimum);
  const max = num(schema.maximum) ?? num(schema.exclusiveMaximum);
  if (min !== undefined) edges.push(min - 1, min - 0.5);
  if (max !== undefined) edges.push(max + 1, max + 0.5);
  return fc.constantFrom(...edges);
}

/** Strings past the schema's length bounds (a 100 KB one when the value travels in a body). */
function badLength(schema: Schema, inBody: boolean): fc.Arbitrary<unknown> {
  // Percent-encoded, 1,000 characters take up to 12 KB: under Node's 16 KiB for the request line and headers.
  const options: fc.Arbitrary<unknown>[] = [hugeString(inBody ? 100_000 : 1_000)];
  const max = num(schema.maxLength);
  const min = num(schema.minLength);
  if (max !== undefined) options.push(fc.constant("x".repeat(max + 1)));
  if (min !== undefined && min > 0) options.push(fc.constant("x".repeat(min - 1)));
  return fc.oneof(...options);
}

/** A value aimed just outside `schema`; `inBody` says whether it may be big (bodies take 100 KB strings). */
export function invalidValue(schema: Schema, inBody: boolean): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [wrongType(), hostileString(), badLength(schema, inBody)];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("integer") || types.includes("number")) options.push(outOfBounds(schema));
  if (typeof schema.format === "string" && BAD_FORMATS[schema.format]) {
    options.push(fc.constantFrom(...(BAD_FORMATS[schema.format] as string[])));
  }
  if (Array.isArray(schema.enum) || "const" in schema || schema.anyOf || schema.oneOf) {
    const first = String((schema.enum as unknown[] | undefined)?.[0] ?? schema.const ?? "");
    options.push(fc.constantFrom(`${first}x`, first.toUpperCase(), ` ${first}`, "__nope__"));
  }
  if (typeof schema.pattern === "string") options.push(fc.constantFrom("0x", "0xZZ", "-", "1.", " 1"));
  if (types.includes("array")) options.push(fc.array(hostileString(), { minLength: 0, maxLength: 120 }));
  if (types.includes("object") || schema.properties) {
    options.push(fc.dictionary(hostileString(), wrongType(), { maxKeys: 3 }));
  }
  return fc.oneof(...options);
}
