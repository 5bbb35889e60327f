/**
 * Every service's OpenAPI document, on every host, as client generators and linters read it: Spectral's
 * `spectral:oas` rules find no error and no warning, and every operation has a unique `operationId` (the
 * name a generated client gives the method) and a summary. The services come from the platform's own list,
 * so a new service is checked as soon as it is added there.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allServices } from "../packages/platform/src/services.ts";
import { formatFindings, lintOpenApi } from "./support/openapiLint.ts";

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

interface Schema {
  default?: unknown;
  required?: string[];
  properties?: Record<string, Schema>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
type OpenApiDocument = { paths?: Record<string, Partial<Record<string, Operation>>> };

/** `GET /path` → operation, for every operation of the document. */
function operationsOf(document: OpenApiDocument): [string, Operation][] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((m) => (item?.[m] ? [[`${m.toUpperCase()} ${path}`, item[m]] as [string, Operation]] : [])),
  );
}

/**
 * What a generated client would force callers to pass although the server has a default for it: a required
 * parameter with a default, a required body property with a default (top-level properties of the body).
 */
function requiredWithDefault(key: string, operation: Operation): string[] {
  const parameters = (operation.parameters ?? [])
    .filter((p) => p.required && p.schema?.default !== undefined)
    .map((p) => `${key} ${p.in}.${p.name}`);
  const properties = Object.values(operation.requestBody?.content ?? {}).flatMap(({ schema }) =>
    (schema?.required ?? [])
      .filter((n) => schema?.properties?.[n]?.default !== undefined)
      .map((n) => `${key} body.${n}`),
  );
  return [...parameters, ...properties];
}

describe("the lint", () => {
  it("reports an operation without an operationId and an example its schema refuses", async () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "t", version: "1", description: "d", contact: { name: "c" } },
      servers: [{ url: "/" }],
      tags: [{ name: "T" }],
      paths: {
        "/n": {
          get: {
            summary: "s",
            description: "d",
            tags: ["T"],
            responses: {
              200: {
                description: "OK",
                content: { "application/json": { schema: { type: "integer" }, example: "one" } },
              },
            },
          },
        },
      },
    };
    const codes = (await lintOpenApi(document)).map((f) => f.code).sort();
    expect(codes).toEqual(["oas3-valid-media-example", "operation-operationId"]);
  });
});

describe.each(allServices.map((service) => [service.name, service] as const))("%s OpenAPI", (_name, service) => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService(service);
  });
  afterAll(() => s?.close());

  const hosts = ["", ...(service.hosts ?? []).map((h) => h.name)].map((host) => ({ host, label: host || "main" }));
  it.each(hosts)("$label host: passes spectral:oas and names every operation", async ({ host }) => {
    const response = await fetch(`${s.urls[host]}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApiDocument;

    const findings = await lintOpenApi(document, `${service.name}${host ? `:${host}` : ""}/openapi.json`);
    expect(findings, `spectral:oas findings:\n${formatFindings(findings)}`).toEqual([]);

    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(0);
    const unnamed = operations.filter(([, o]) => !o.operationId || !o.summary).map(([key]) => key);
    expect(unnamed, "operations without an operationId or a summary").toEqual([]);
    const ids = operations.map(([, o]) => o.operationId);
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(repeated, "operationIds used twice").toEqual([]);

    const defaulted = operations.flatMap(([key, o]) => requiredWithDefault(key, o));
    expect(defaulted, "required although the server has a default").toEqual([]);
    // A parameter inside a segment (`/v2/orders{by_client_order_id}`) is a literal colon Fastify read as one.
    const glued = Object.keys(document.paths ?? {}).filter((path) => /[^/]\{|\}[^/]/.test(path));
    expect(glued, "path parameters that are not a whole segment").toEqual([]);
  });
});
