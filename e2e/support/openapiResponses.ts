/**
 * Checks answers against a served OpenAPI 3.1 document, as a client generated from it expects them: the
 * status is declared for that operation, and the body validates against the response schema of that
 * (method, path, status). Ajv with JSON Schema 2020-12 (OpenAPI 3.1's dialect); `$ref`s into the document's
 * components resolve.
 */
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// Both packages are CommonJS with a default export.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Schema = Record<string, unknown>;
interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
export interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, Response> } | undefined> | undefined>;
  components?: Record<string, unknown>;
}

export type AnswerCheck = (o: { method: string; path: string; status: number; body: unknown }) => string[];

const DOCUMENT_ID = "openapi.json";

/** The JSON pointer token of `key` (RFC 6901). */
const pointerToken = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The response object declared for `status` (or its `4XX` range, or `default`) of `method path`; `path` is the
 * document's template (`/users/{user_id}`). Undefined when the document does not list that answer.
 */
export function declaredResponse(document: OpenApiDocument, method: string, path: string, status: number) {
  const responses = document.paths?.[path]?.[method.toLowerCase()]?.responses;
  if (!responses) return undefined;
  const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => responses[k]);
  return key ? { key, response: responses[key] as Response } : undefined;
}

/** The template of `document` that a concrete path (`/users/3f1c…`) matches, for `method`. */
export function pathTemplateOf(document: OpenApiDocument, method: string, concretePath: string): string | undefined {
  const templates = Object.keys(document.paths ?? {}).filter((t) => document.paths?.[t]?.[method.toLowerCase()]);
  // A literal template wins over one with parameters (`/orders:by_client_order_id` over `/orders/{id}`).
  const exact = templates.find((t) => t === concretePath);
  if (exact) return exact;
  return templates.find((t) => {
    const pattern = t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    return new RegExp(`^${pattern}$`).test(concretePath);
  });
}

/**
 * A checker of answers against `document`: each call returns what is wrong (an undeclared status, a body its
 * schema refuses, a body where none is declared), or nothing. Validators are compiled once per response.
 */
export function createAnswerCheck(document: OpenApiDocument): AnswerCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // The whole document under one id, so a response schema is compiled by its pointer and its `$ref`s resolve.
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {}, paths: document.paths ?? {} });
  const compiled = new Map<string, ReturnType<typeof ajv.getSchema>>();
  return ({ method, path, status, body }) => {
    const m = method.toLowerCase();
    const declared = declaredResponse(document, m, path, status);
    if (!declared) return [`${method.toUpperCase()} ${path} answered ${status}, which the document does not list`];
    const media = Object.entries(declared.response.content ?? {}).find(([type]) => /json/.test(type));
    if (!media?.[1].schema) {
      const empty = body === undefined || body === null || body === "";
      return empty ? [] : [`${method.toUpperCase()} ${path} ${status}: a body where the document declares none`];
    }
    const pointer = ["paths", path, m, "responses", declared.key, "content", media[0], "schema"].map(pointerToken);
    const ref = `${DOCUMENT_ID}#/${pointer.join("/")}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${method.toUpperCase()} ${path} ${status}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
    );
  };
}
