/**
 * Request validation with two Ajv instances: query strings, path parameters and headers arrive as
 * text and are coerced to their schema types (`?limit=5` → 5); JSON bodies are not coerced, so
 * `{"first_name": 42}` is a 400, not the string "42". Unknown body fields are reported, never
 * silently dropped.
 */
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

// Both packages are CommonJS with a default export.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function createAjv(coerceTypes: boolean | "array") {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = createAjv("array");
  const strict = createAjv(false);
  return ({ schema, httpPart }) => (httpPart === "body" ? strict : coercing).compile(schema as object);
}
