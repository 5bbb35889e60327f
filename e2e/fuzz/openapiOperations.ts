/**
 * The operations of a served OpenAPI 3.1 document, as the fuzzer reads them: every method of every path with
 * its parameters, request body, documented responses and security alternatives, `$ref`s resolved inline.
 */

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type Schema = { [keyword: string]: unknown };

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Schema;
}

export interface SecurityScheme {
  type: "apiKey" | "http" | "oauth2" | "openIdConnect";
  in?: "header" | "query" | "cookie";
  name?: string;
  scheme?: string;
}

/** One way to authenticate: the schemes that must all be present. */
export type SecurityAlternative = string[];

export interface ResponseSpec {
  /** Media type → schema (absent: no body documented). */
  content: Record<string, Schema | undefined>;
}

export interface Operation {
  /** Which served document (host) it comes from, e.g. `brokerage paper`. */
  host: string;
  origin: string;
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body?: { required: boolean; mediaType: string; schema: Schema };
  /** Status code (or `default`, `4XX`) → response. */
  responses: Record<string, ResponseSpec>;
  /** Empty: no authentication. */
  security: SecurityAlternative[];
  securitySchemes: Record<string, SecurityScheme>;
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
  security?: Record<string, string[]>[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/**
 * `value` with every local `$ref` replaced by what it points at (the documents have no cycles). Inlined copies
 * lose their `$id`: a component named by `$id` (an error body) appears in many operations, and one Ajv instance
 * refuses a second schema with the same id.
 */
export function resolveRefs<T>(value: T, document: OpenApiDocument, depth = 0): T {
  if (depth > 64) throw new Error("$ref nesting deeper than 64: a cycle?");
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, document, depth + 1)) as T;
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  if (typeof object.$ref === "string") {
    const target = object.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (target === undefined) throw new Error(`unresolved $ref ${object.$ref}`);
    const { $ref: _, ...rest } = object;
    return resolveRefs({ ...(target as object), ...rest }, document, depth + 1) as T;
  }
  return Object.fromEntries(
    Object.entries(object)
      .filter(([k]) => k !== "$id")
      .map(([k, v]) => [k, resolveRefs(v, document, depth + 1)]),
  ) as T;
}

/** Every operation of `document`, served at `origin` under the name `host`. */
export function operationsOf(document: OpenApiDocument, host: string, origin: string): Operation[] {
  const resolved = resolveRefs(document, document);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(resolved.paths ?? {})) {
    const shared = (item.parameters ?? []) as Parameter[];
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const parameters = [...shared, ...((raw.parameters ?? []) as Parameter[])].map((p) => ({
        ...p,
        required: p.required === true || p.in === "path",
        schema: p.schema ?? {},
      }));
      const requestBody = raw.requestBody as
        | { required?: boolean; content?: Record<string, { schema?: Schema }> }
        | undefined;
      const [mediaType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [];
      const responses = Object.fromEntries(
        Object.entries((raw.responses ?? {}) as Record<string, { content?: Record<string, { schema?: Schema }> }>).map(
          ([status, r]) => [
            status,
            { content: Object.fromEntries(Object.entries(r.content ?? {}).map(([t, m]) => [t, m.schema])) },
          ],
        ),
      );
      const security = ((raw.security ?? resolved.security ?? []) as Record<string, string[]>[]).map((alternative) =>
        Object.keys(alternative),
      );
      operations.push({
        host,
        origin,
        method: method.toUpperCase(),
        path,
        operationId: (raw.operationId as string | undefined) ?? `${method} ${path}`,
        parameters,
        body: mediaType
          ? { required: requestBody?.required === true, mediaType, schema: media?.schema ?? {} }
          : undefined,
        responses,
        security: security.filter((alternative) => alternative.length > 0),
        securitySchemes: resolved.components?.securitySchemes ?? {},
      });
    }
  }
  return operations;
}

/** `GET /path (host)`: how reports name an operation. */
export const operationName = (op: Operation): string => `${op.method} ${op.path} (${op.host})`;
