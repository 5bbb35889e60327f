/**
 * Request validation with two Ajv instances: query strings, path parameters and headers arrive as
 * text and are coerced to their schema types (`?limit=5` → 5); JSON bodies are not coerced, so
 * `{"first_name": 42}` is a 400, not the string "42". A body first goes through the service's field
 * rules (`bodyLeniency.ts`: unknown fields dropped, `null` for an optional field read as absent) when
 * the service chose them; otherwise an undeclared field of a closed schema is reported, never dropped.
 */
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import { type BodyLeniency, changesFields, normalizeBody } from "./bodyLeniency.ts";

// Both packages are CommonJS with a default export.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function createAjv(coerceTypes: boolean | "array") {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

export function createValidatorCompiler(bodies: BodyLeniency = {}): FastifySchemaCompiler<unknown> {
  const coercing = createAjv("array");
  const strict = createAjv(false);
  return ({ schema, httpPart }) => {
    if (httpPart !== "body") return coercing.compile(schema as object);
    const validate = strict.compile(schema as object);
    if (!changesFields(bodies)) return validate;
    const lenient: ReturnType<FastifySchemaCompiler<unknown>> = (data: unknown) => {
      const valid = validate(normalizeBody(schema, data, bodies));
      lenient.errors = validate.errors;
      return valid;
    };
    return lenient;
  };
}
