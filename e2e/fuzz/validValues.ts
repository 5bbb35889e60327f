/**
 * Values a JSON Schema accepts, as fast-check arbitraries: the document's own examples and openapi-sampler's
 * sample (the value a client generator would send first) next to values drawn from the schema's keywords
 * (types, enums, bounds, formats, patterns), so a case can reach past the first validation layer.
 */
import fc from "fast-check";
import { sample } from "openapi-sampler";
import type { Schema } from "./openapiOperations.ts";
import { validatorOf } from "./schemaValidator.ts";

/** Arrays, strings and objects stay small: the invalid side (`invalidValues.ts`) brings the big ones. */
const MAX_ITEMS = 4;
const MAX_STRING = 40;

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];

const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** The schema's examples (`example`, `examples`, `default`, openapi-sampler's sample) that it really accepts. */
function documentedValues(schema: Schema): unknown[] {
  const values: unknown[] = [];
  if ("example" in schema) values.push(schema.example);
  if (Array.isArray(schema.examples)) values.push(...schema.examples);
  if ("default" in schema) values.push(schema.default);
  try {
    values.push(sample(schema as never, { quiet: true, skipReadOnly: true, enablePatterns: true }));
  } catch {
    // The sampler does not know every keyword combination; the schema's own arbitrary still runs.
  }
  const accepts = validatorOf(schema);
  return values.filter((v) => v !== undefined && accepts(v));
}

function stringValue(schema: Schema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(schema.maxLength) ?? MAX_STRING, minLength + MAX_STRING));
  if (typeof schema.pattern === "string") {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= (num(schema.maxLength) ?? Number.POSITIVE_INFINITY));
  }
  switch (schema.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
        .map((d) => d.toISOString());
    case "date":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case "email":
      return fc.emailAddress().filter((e) => e.length <= maxLength);
    case "uri":
      return fc.webUrl();
    case "binary":
      return fc.string({ unit: "binary-ascii", maxLength: 200 });
  }
  // One code point per unit: JSON Schema counts lengths in code points.
  return fc.string({ unit: "grapheme-composite", minLength, maxLength });
}

function numberValue(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  const min = num(schema.minimum) ?? (exclusiveMin !== undefined ? exclusiveMin + (integer ? 1 : 1e-9) : undefined);
  const max = num(schema.maximum) ?? (exclusiveMax !== undefined ? exclusiveMax - (integer ? 1 : 1e-9) : undefined);
  if (integer) {
    return fc.integer({
      min: Math.max(Math.ceil(min ?? -1e9), Number.MIN_SAFE_INTEGER),
      max: Math.min(Math.floor(max ?? 1e9), Number.MAX_SAFE_INTEGER),
    });
  }
  return fc.double({ min: min ?? -1e9, max: max ?? 1e9, noNaN: true, noDefaultInfinity: true });
}

function objectValue(schema: Schema, known: KnownValues): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = validValue(property, known, name);
  for (const name of required) model[name] ??= fc.anything();
  return fc.record(model, { requiredKeys: [...required] });
}

/** Known real values by property or parameter name (a seeded user's id…), so cases reach real objects. */
export type KnownValues = Record<string, unknown[]>;

/** An arbitrary of values `schema` accepts; `name` (the property's) picks known real values too. */
export function validValue(schema: Schema, known: KnownValues = {}, name?: string): fc.Arbitrary<unknown> {
  const fromSchema = schemaValue(schema, known);
  const fixed = [...documentedValues(schema), ...((name && known[name]) || [])];
  if (fixed.length === 0) return fromSchema;
  return fc.oneof({ arbitrary: fc.constantFrom(...fixed), weight: 1 }, { arbitrary: fromSchema, weight: 1 });
}

function schemaValue(schema: Schema, known: KnownValues): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches?.length) return fc.oneof(...branches.map((b) => validValue(b, known)));
  if (Array.isArray(schema.allOf)) {
    const merged = Object.assign({}, ...(schema.allOf as Schema[]), { allOf: undefined }) as Schema;
    return schemaValue(merged, known);
  }
  const types = typesOf(schema);
  if (types.length === 0) {
    if (schema.properties) return objectValue(schema, known);
    return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case "string":
          return stringValue(schema);
        case "integer":
          return numberValue(schema, true);
        case "number":
          return numberValue(schema, false);
        case "boolean":
          return fc.boolean();
        case "null":
          return fc.constant(null);
        case "array": {
          const items = (schema.items ?? {}) as Schema;
          const minLength = num(schema.minItems) ?? 0;
          const maxLength = Math.max(minLength, Math.min(num(schema.maxItems) ?? MAX_ITEMS, MAX_ITEMS));
          return fc.array(validValue(items, known), { minLength, maxLength });
        }
        default:
          return objectValue(schema, known);
      }
    }),
  );
}
