/**
 * What a service accepts in request bodies beyond the strict JSON its schemas describe, chosen per service to
 * match its anchor (`createHttpServer({ bodies })`): a JSON body sent without a Content-Type or as
 * `text/plain`, fields the schema does not declare (dropped, never seen by a handler), and `null` for an
 * optional field that does not accept null (the field is absent). Everything defaults to strict.
 *
 * The field rules are driven by the body schema alone: `normalizeBody` walks a parsed body beside its JSON
 * Schema (objects, arrays, `anyOf`/`oneOf`/`allOf` branches) and changes it in place before validation.
 */

export interface BodyLeniency {
  /** A body without a Content-Type header is parsed as JSON (FastAPI and Go's encoding/json servers do). */
  jsonWithoutContentType?: boolean;
  /** A `text/plain` body is parsed as JSON (what fetch labels a string body sent without a type). */
  jsonFromTextPlain?: boolean;
  /**
   * An `application/x-www-form-urlencoded` body is parsed as JSON: what `curl -d '{…}'` sends without `-H`.
   * Scopes that read real forms (OAuth endpoints, pages) register their own parsers and are not affected.
   */
  jsonFromFormUrlencoded?: boolean;
  /** Fields a body schema does not declare are removed before validation instead of refused. */
  ignoreUnknownFields?: boolean;
  /** `null` for an optional field whose schema does not accept null means the field is absent. */
  nullAsAbsent?: boolean;
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const subschemas = (schema: Schema, keyword: "anyOf" | "oneOf" | "allOf"): Schema[] =>
  Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]).filter(isObject) : [];

/** The schemas that describe an object here: the schema itself and its combined branches, recursively. */
function objectSchemas(schema: Schema): Schema[] {
  const own = isObject(schema.properties) ? [schema] : [];
  return [
    ...own,
    ...subschemas(schema, "anyOf").flatMap(objectSchemas),
    ...subschemas(schema, "oneOf").flatMap(objectSchemas),
    ...subschemas(schema, "allOf").flatMap(objectSchemas),
  ];
}

/** Whether `schema` lets `null` through (a schema that constrains nothing, or a `$ref` we do not follow, does). */
function acceptsNull(schema: Schema): boolean {
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (schema.nullable === true || schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const branches = [...subschemas(schema, "anyOf"), ...subschemas(schema, "oneOf")];
  if (branches.some(acceptsNull)) return true;
  const constrains = ["type", "const", "enum", "anyOf", "oneOf", "allOf", "$ref", "not"].some((k) => k in schema);
  return !constrains;
}

/** Whether an object schema leaves no room for a field it does not declare. */
function closedTo(schema: Schema, key: string): boolean {
  if (schema.additionalProperties === true || isObject(schema.additionalProperties)) return false;
  const patterns = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
  return !patterns.some((pattern) => new RegExp(pattern, "u").test(key));
}

/**
 * Applies the field rules of `leniency` to `value` (a parsed body or part of one) as `schema` describes it,
 * in place, and returns it.
 */
export function normalizeBody(schema: unknown, value: unknown, leniency: BodyLeniency): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    if (isObject(schema.items)) for (const item of value) normalizeBody(schema.items, item, leniency);
    for (const branch of [...subschemas(schema, "anyOf"), ...subschemas(schema, "oneOf")]) {
      normalizeBody(branch, value, leniency);
    }
    return value;
  }
  if (!isObject(value)) return value;
  const described = objectSchemas(schema);
  if (described.length === 0) return value;
  for (const key of Object.keys(value)) {
    const declared = described
      .map((s) => (s.properties as Record<string, unknown>)[key])
      .filter((s): s is Schema => isObject(s));
    if (declared.length === 0) {
      if (leniency.ignoreUnknownFields && described.every((s) => closedTo(s, key))) delete value[key];
      continue;
    }
    if (value[key] === null) {
      const required = described.some((s) => Array.isArray(s.required) && s.required.includes(key));
      if (leniency.nullAsAbsent && !required && !declared.some(acceptsNull)) delete value[key];
      continue;
    }
    for (const fieldSchema of declared) normalizeBody(fieldSchema, value[key], leniency);
  }
  return value;
}

/** Whether any field rule is on (the body walk is skipped otherwise). */
export const changesFields = (leniency: BodyLeniency): boolean =>
  Boolean(leniency.ignoreUnknownFields || leniency.nullAsAbsent);
