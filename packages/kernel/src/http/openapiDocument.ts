/**
 * Completes the document @fastify/swagger generates so that linters accept it and a client generated from it
 * works: every used tag declared, every response described, a parameter or body property with a default
 * optional (TypeBox lists such fields as required; the validator fills them in, so callers may leave them
 * out), and on every operation each error answer the server itself can give, in the service's error format.
 */
import { STATUS_CODES } from "node:http";
import type { FastifyRequest } from "fastify";
import { HttpError } from "./httpError.ts";

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Methods whose requests Fastify reads a body of (so they can be answered 400 bad JSON, 413 and 415). */
const BODY_METHODS = new Set<HttpMethod>(["post", "put", "patch", "delete", "options"]);

/** A tag of the OpenAPI document: operations are grouped under it in the docs and in generated clients. */
export interface OpenApiTag {
  name: string;
  description?: string;
}

/** What the service says about its error answers, so the kernel can declare them on every operation. */
export interface OpenApiErrors {
  /** Component name of the error body (a generated client's model name), e.g. `ServiceApiError`. */
  name: string;
  /** JSON schema of every body the service's `ErrorFormatter` produces. */
  schema: object;
  /**
   * Statuses every operation that takes credentials may also answer beyond the kernel's own (e.g. 429 where
   * rate limits apply, 403 where every operation checks a permission).
   */
  securedStatuses?: readonly number[];
  /**
   * Statuses operations may answer beyond the kernel's own, secured or not: on every operation, or on those of
   * the given methods (e.g. 400 where undeclared query parameters are refused; 403 on the writes of an account
   * that may be suspended).
   */
  otherStatuses?: readonly { status: number; methods?: readonly HttpMethod[] }[];
}

/** Turns an HttpError into the status and body the service answers (the server's `ErrorFormatter`). */
type FormatError = (error: HttpError, request: FastifyRequest) => { statusCode: number; body: unknown };

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema; example?: unknown }>;
}
interface Operation {
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
}
/** The parts of a generated document that `completeDocument` reads and completes. */
export interface OpenApiDocument {
  paths?: Record<string, Partial<Record<HttpMethod, Operation>> | undefined>;
  tags?: OpenApiTag[];
  security?: Record<string, string[]>[];
  components?: { schemas?: Record<string, Schema>; [part: string]: unknown };
}

export interface CompleteDocumentParameters {
  /** Every tag with its description, in the order the docs show them. */
  tags: readonly OpenApiTag[];
  errors?: OpenApiErrors;
  formatError: FormatError;
}

/** The request id the error examples show. */
export const EXAMPLE_ERROR_REQUEST_ID = "8d3c4a52-6f0e-4b1a-9c7d-2e5f1a0b9c84";

export function completeDocument(generated: OpenApiDocument, parameters: CompleteDocumentParameters): OpenApiDocument {
  // A copy: the generated document shares schema objects with the routes, which must not change.
  const document = JSON.parse(JSON.stringify(generated)) as OpenApiDocument;
  const tags = new Map(parameters.tags.map((t) => [t.name, t]));
  const used = new Set<string>();
  const components = { ...document.components, schemas: { ...document.components?.schemas } };
  const errors = parameters.errors;
  if (errors) components.schemas[errors.name] = JSON.parse(JSON.stringify(errors.schema)) as Schema;
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      for (const tag of operation.tags ?? []) {
        used.add(tag);
        if (!tags.has(tag)) tags.set(tag, { name: tag });
      }
      optionalWhenDefaulted(operation, components.schemas);
      if (errors)
        declareErrorAnswers({ path, method, operation, document, errors, formatError: parameters.formatError });
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!response.description || response.description === "Default Response") {
          response.description = STATUS_CODES[Number(status)] ?? "Response";
        }
      }
    }
  }
  return { ...document, components, tags: [...tags.values()].filter((t) => used.has(t.name)) };
}

/**
 * A parameter or request body property that has a default is not required of the caller: the validator
 * applies the default (`useDefaults`) before it checks `required`.
 */
function optionalWhenDefaulted(operation: Operation, componentSchemas: Record<string, Schema>): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "path" && parameter.required && parameter.schema?.default !== undefined) {
      parameter.required = false;
    }
  }
  const seen = new Set<Schema>();
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    if (media.schema) dropDefaultedFromRequired(media.schema, componentSchemas, seen);
  }
}

function dropDefaultedFromRequired(schema: Schema, componentSchemas: Record<string, Schema>, seen: Set<Schema>) {
  if (seen.has(schema)) return;
  seen.add(schema);
  const ref = typeof schema.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref) : null;
  const target = ref ? componentSchemas[decodeURIComponent(ref[1] as string)] : undefined;
  if (target) dropDefaultedFromRequired(target, componentSchemas, seen);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if (Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((name) => properties[name]?.default === undefined);
    if (required.length === 0) delete schema.required;
    else schema.required = required;
  }
  const children = [
    ...Object.values(properties),
    ...(["items", "additionalProperties", "not"] as const).map((k) => schema[k]),
    ...(["allOf", "anyOf", "oneOf", "prefixItems"] as const).flatMap((k) => (schema[k] as Schema[] | undefined) ?? []),
  ];
  for (const child of children) {
    if (child && typeof child === "object") dropDefaultedFromRequired(child as Schema, componentSchemas, seen);
  }
}

/**
 * The errors any route of a kernel server can answer, with when an operation can meet each: parameters or a
 * body the validator refuses, a body that is not JSON, missing or invalid credentials, an unknown id in the
 * path or one the router cannot read (bad percent-encoding, too long), a body too large or of a type no parser
 * reads, an unexpected failure, a server that is closing.
 */
const KERNEL_ERRORS: {
  applies(o: { operation: Operation; method: HttpMethod; path: string; secured: boolean }): boolean;
  error(o: { operation: Operation }): HttpError;
}[] = [
  {
    applies: ({ operation }) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined,
    error: ({ operation }) => {
      const first = operation.parameters?.[0];
      const at = first
        ? `${{ path: "path", query: "query", header: "headers" }[first.in] ?? first.in}.${first.name}`
        : "body";
      return new HttpError(400, `${at}: invalid value`, "INVALID_PARAM", first?.name);
    },
  },
  {
    applies: ({ method }) => BODY_METHODS.has(method),
    error: () => new HttpError(400, "Request body is not valid JSON", "INVALID_BODY"),
  },
  { applies: ({ secured }) => secured, error: () => new HttpError(401, "Missing or invalid credentials") },
  // Too many failed credentials from the client's address (limits/failedCredentials.ts, in every service).
  {
    applies: ({ secured }) => secured,
    error: () => new HttpError(429, "Too many failed authentication attempts from this address; retry later"),
  },
  {
    applies: ({ path }) => path.includes("{"),
    error: () => new HttpError(404, "Not found", "NOT_FOUND"),
  },
  // The router's own refusals of a path parameter (createHttpServer's `frameworkErrors`).
  {
    applies: ({ path }) => path.includes("{"),
    error: () => new HttpError(400, "'/items/%E0%A4%A' is not a valid url component", "FST_ERR_BAD_URL"),
  },
  {
    applies: ({ path }) => path.includes("{"),
    error: () => new HttpError(414, "'/items/…' is exceeding the max param length", "FST_ERR_MAX_PARAM_LENGTH"),
  },
  {
    applies: ({ method }) => BODY_METHODS.has(method),
    error: () => new HttpError(413, "Request body is too large", "BODY_TOO_LARGE"),
  },
  {
    applies: ({ method }) => BODY_METHODS.has(method),
    error: () => new HttpError(415, "Unsupported content type; send application/json", "UNSUPPORTED_MEDIA_TYPE"),
  },
  { applies: () => true, error: () => new HttpError(500, "Internal server error", "INTERNAL_SERVER_ERROR") },
  { applies: () => true, error: () => new HttpError(503, "Service unavailable", "SERVICE_UNAVAILABLE") },
];

/** Does the operation take credentials: its own `security`, else the document's, names a scheme. */
const isSecured = (operation: Operation, document: OpenApiDocument) =>
  (operation.security ?? document.security ?? []).some((requirement) => Object.keys(requirement).length > 0);

/**
 * Declares on `operation` every error status it can answer that it does not declare itself: the status and
 * body come from the service's own formatter (a service may map a kernel error to another status, as the
 * trading API's 422 for parameters, or to 200, as Etherscan's envelope), the schema from `errors`.
 */
function declareErrorAnswers(o: {
  path: string;
  method: HttpMethod;
  operation: Operation;
  document: OpenApiDocument;
  errors: OpenApiErrors;
  formatError: FormatError;
}): void {
  const { path, method, operation, errors } = o;
  const secured = isSecured(operation, o.document);
  const request = { id: EXAMPLE_ERROR_REQUEST_ID, method: method.toUpperCase(), url: path, headers: {} };
  const candidates = KERNEL_ERRORS.filter((e) => e.applies({ operation, method, path, secured })).map((e) =>
    e.error({ operation }),
  );
  if (secured) {
    for (const status of errors.securedStatuses ?? []) {
      candidates.push(new HttpError(status, STATUS_CODES[status] ?? "Error"));
    }
  }
  for (const { status, methods } of errors.otherStatuses ?? []) {
    if (!methods || methods.includes(method)) candidates.push(new HttpError(status, STATUS_CODES[status] ?? "Error"));
  }
  operation.responses ??= {};
  const responses = operation.responses;
  for (const error of candidates) {
    const { statusCode, body } = o.formatError(error, request as unknown as FastifyRequest);
    const status = String(statusCode);
    if (responses[status]) continue;
    responses[status] = {
      description: STATUS_CODES[statusCode] ?? "Error",
      content: {
        "application/json": { schema: { $ref: `#/components/schemas/${errors.name}` }, example: body },
      },
    };
  }
}
