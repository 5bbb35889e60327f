/**
 * One Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses, with formats) for the fuzzer: validators compiled once
 * per schema object, for answers and for the values it draws.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
// OpenAPI's annotation keywords, which Ajv does not know.
for (const keyword of ["example", "xml", "externalDocs", "discriminator"]) ajv.addKeyword(keyword);

const validators = new WeakMap<object, ValidateFunction>();

export function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}
