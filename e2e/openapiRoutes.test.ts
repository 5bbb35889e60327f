/**
 * Every operation a served OpenAPI document lists is a real route, on every host of every service: called
 * with valid credentials (path parameters filled from their schemas, an empty JSON body where the method
 * takes one), none gets the "not found" answer of an unknown route, and each answer's status is declared
 * for that operation with a body its schema accepts; so are the answers to path parameters the router
 * refuses (bad percent-encoding, too long). The services come from the platform's own list.
 */
import { randomUUID } from "node:crypto";
import type { Brokerage } from "@platform/brokerage";
import { accountsOf } from "@platform/brokerage/testing";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allServices } from "../packages/platform/src/services.ts";
import { createAnswerCheck, type OpenApiDocument } from "./support/openapiResponses.ts";

const METHODS = ["get", "put", "post", "delete", "patch"] as const;
const BODY_METHODS = new Set(["put", "post", "patch", "delete"]);

interface Parameter {
  name: string;
  in: string;
  schema?: { format?: string; enum?: unknown[]; type?: string; examples?: unknown[] };
}
interface Operation {
  parameters?: Parameter[];
}
type Document = OpenApiDocument & { paths: Record<string, Record<string, Operation | undefined>> };

/** A value a path parameter's schema accepts, or at least one that routes to the operation. */
function pathValue(p: Parameter): string {
  const s = p.schema ?? {};
  if (s.enum?.length) return String(s.enum[0]);
  if (s.examples?.length) return String(s.examples[0]);
  if (s.format === "uuid") return randomUUID();
  if (s.type === "integer" || s.type === "number") return "1";
  return "AAPL";
}

/** Headers and query parameters that authenticate on `host` of `service`. */
type Credentials = (host: string) => { headers: Record<string, string>; query: Record<string, string> };

async function credentialsOf(name: string, s: TestService): Promise<Credentials> {
  if (name === "wearables") return () => ({ headers: { "X-Service-API-Key": s.apiKey }, query: {} });
  if (name === "crosschain") return () => ({ headers: { authorization: `Bearer ${s.apiKey}` }, query: {} });
  if (name === "chainstats") return () => ({ headers: {}, query: { apikey: s.apiKey } });
  const { services } = s.instance as Brokerage;
  const user = await services.users.create({
    email: `routes-${randomUUID()}@example.com`,
    password: "correct horse battery",
    startingCash: "100000",
  });
  const { live, paper } = accountsOf(user);
  const liveKeys = await services.keyPairs.create({ accountId: live.id });
  const paperKeys = await services.keyPairs.create({ accountId: paper[0].id });
  return (host) => {
    const keys = host === "paper" ? paperKeys : liveKeys;
    return { headers: { "APCA-API-KEY-ID": keys.key_id, "APCA-API-SECRET-KEY": keys.secret_key }, query: {} };
  };
}

describe("the answer check", () => {
  const document = {
    paths: {
      "/users/{id}": {
        get: {
          responses: {
            200: { content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } },
            "4XX": { content: { "application/json": { schema: { type: "object", required: ["detail"] } } } },
            204: { description: "No Content" },
          },
        },
      },
    },
    components: {
      schemas: { User: { type: "object", required: ["id"], properties: { id: { type: "string", format: "uuid" } } } },
    },
  };
  const check = createAnswerCheck(document);

  it("accepts what the document declares, through $refs and status ranges", () => {
    expect(check({ method: "GET", path: "/users/{id}", status: 200, body: { id: randomUUID() } })).toEqual([]);
    expect(check({ method: "get", path: "/users/{id}", status: 404, body: { detail: "no" } })).toEqual([]);
    expect(check({ method: "GET", path: "/users/{id}", status: 204, body: "" })).toEqual([]);
  });

  it("reports an undeclared status, a body its schema refuses, a body where none is declared", () => {
    expect(check({ method: "GET", path: "/users/{id}", status: 500, body: {} })).toEqual([
      "GET /users/{id} answered 500, which the document does not list",
    ]);
    expect(check({ method: "GET", path: "/users/{id}", status: 200, body: { id: "x" } })).toEqual([
      'GET /users/{id} 200: body/id must match format "uuid" {"format":"uuid"}',
    ]);
    expect(check({ method: "GET", path: "/users/{id}", status: 204, body: { id: "x" } })).toEqual([
      "GET /users/{id} 204: a body where the document declares none",
    ]);
  });
});

describe.each(allServices.map((service) => [service.name, service] as const))("%s routes", (name, service) => {
  let s: TestService;
  let credentials: Credentials;
  beforeAll(async () => {
    s = await startTestService(service, { config: { brokerageRateLimit: 100_000 } });
    credentials = await credentialsOf(name, s);
  });
  afterAll(() => s?.close());

  const hosts = ["", ...(service.hosts ?? []).map((h) => h.name)].map((host) => ({ host, label: host || "main" }));
  it.each(hosts)("$label host: every documented operation is routed and answers as documented", async ({ host }) => {
    const document = (await (await fetch(`${s.urls[host]}/openapi.json`)).json()) as Document;
    const check = createAnswerCheck(document);
    const { headers, query } = credentials(host);
    const problems: string[] = [];
    /** Calls `method template` with its path parameters set to `value(p)`; the answer's status and body. */
    const call = async (method: string, template: string, operation: Operation, value: (p: Parameter) => string) => {
      let path = template;
      for (const p of operation.parameters ?? []) {
        if (p.in === "path") path = path.replace(`{${p.name}}`, value(p));
      }
      const url = new URL(`${s.urls[host]}${path}`);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      const response = await fetch(url, {
        method: method.toUpperCase(),
        headers: { ...headers, ...(BODY_METHODS.has(method) ? { "content-type": "application/json" } : {}) },
        body: BODY_METHODS.has(method) ? "{}" : undefined,
        // The answer as the route sends it (a 303 is checked as a 303, not as the page it leads to).
        redirect: "manual",
      });
      // A server-sent events stream never ends: its answer is its status and headers.
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
        await response.body?.cancel();
        return { path, status: response.status, text: "", body: "" };
      }
      const text = await response.text();
      const body = text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
      return { path, status: response.status, text, body };
    };
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item?.[method];
        if (!operation) continue;
        const answer = await call(method, template, operation, (p) => encodeURIComponent(pathValue(p)));
        if (answer.text.includes(`Not found: ${method.toUpperCase()} `)) {
          problems.push(`${method.toUpperCase()} ${template} (${answer.path}): no such route`);
          continue;
        }
        problems.push(...check({ method, path: template, status: answer.status, body: answer.body }));
        if (!template.includes("{")) continue;
        // Path parameters the router itself refuses: a bad percent-encoding, one over its length limit.
        for (const refused of ["%E0%A4%A", "x".repeat(101)]) {
          const { status, body } = await call(method, template, operation, () => refused);
          problems.push(...check({ method, path: template, status, body }));
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
