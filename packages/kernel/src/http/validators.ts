/**
 * Request validation with two Ajv instances: query strings, path parameters and headers arrive as
 * text and are coerced to their schema types (`?limit=5` → 5); JSON bodies are not coerced, so
 * `{"first_name": 42}` is a 400, not the string "42". A body first goes through the service's field
 * rules (`bodyLeniency.ts`: unknown fields dropped, `null` for an optional field read as absent) when
 * the service chose them; otherwise an undeclared field of a closed schema is reported, never dropped.
 * No text may hold NUL (PostgreSQL's text cannot store it, so a query with one failed as a 500): such a
 * value is a 400 like any other bad value, in every part of every request.
 */

import type { ErrorObject, ValidateFunction } from "ajv";
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

/**
 * The JSON pointer of a string in `data` that holds NUL, or undefined. A loop over a stack, not recursion: a
 * body of 5,000 nested arrays is valid JSON and must not overflow the call stack (a 500).
 */
function nulAt(data: unknown): string | undefined {
  type Visit = { value: unknown; key: string; parent?: Visit };
  const pending: Visit[] = [{ value: data, key: "" }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === "string") {
      if (!value.includes("\u0000")) continue;
      const keys: string[] = [];
      for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.unshift(at.key);
      return keys.map((key) => `/${key}`).join("");
    }
    if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) pending.push({ value: child, key, parent: visit });
    }
  }
  return undefined;
}

/** `validate`, refusing first any string that holds NUL (an error shaped as Ajv's, so it is answered as one). */
function refusingNul(validate: ValidateFunction): ValidateFunction {
  const guarded = ((data: unknown) => {
    const pointer = nulAt(data);
    if (pointer !== undefined) {
      const error: ErrorObject = {
        instancePath: pointer,
        schemaPath: "#",
        keyword: "nul",
        params: {},
        message: "must not contain the NUL character",
      };
      guarded.errors = [error];
      return false;
    }
    const valid = validate(data);
    guarded.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return guarded;
}

export function createValidatorCompiler(bodies: BodyLeniency = {}): FastifySchemaCompiler<unknown> {
  const coercing = createAjv("array");
  const strict = createAjv(false);
  return ({ schema, httpPart }) => {
    if (httpPart !== "body") return refusingNul(coercing.compile(schema as object));
    const validate = refusingNul(strict.compile(schema as object));
    if (!changesFields(bodies)) return validate;
    const lenient: ReturnType<FastifySchemaCompiler<unknown>> = (data: unknown) => {
      const valid = validate(normalizeBody(schema, data, bodies));
      lenient.errors = validate.errors;
      return valid;
    };
    return lenient;
  };
}
