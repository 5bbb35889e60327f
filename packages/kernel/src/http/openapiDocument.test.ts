import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.ts";
import { createHttpServer, type ErrorFormatter, type HttpServer } from "./createHttpServer.ts";

// As the trading API's: parameters refused by the validator are 422, the rest keep their status.
const formatError: ErrorFormatter = (e) => ({
  statusCode: e.code === "INVALID_PARAM" ? 422 : e.statusCode,
  body: { message: e.message },
});
const ErrorBody = Type.Object({ message: Type.String() });

let app: HttpServer | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

interface Operation {
  parameters: { name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { required?: string[]; properties: Record<string, unknown> } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown; example: unknown }> }>;
}

async function documentOf(errors?: { securedStatuses?: number[] }) {
  app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    bodyLimit: 1024,
    formatError,
    openapi: {
      title: "t",
      version: "1",
      description: "d",
      securitySchemes: { key: { type: "apiKey", in: "header", name: "x-key" } },
      security: [{ key: [] }],
      errors: errors && { name: "Problem", schema: ErrorBody, ...errors },
    },
  });
  const Query = Type.Object({ page: Type.Integer({ default: 1 }), q: Type.String() });
  const Body = Type.Object({ name: Type.String(), size: Type.Integer({ default: 3 }) });
  const item = { id: Type.String() };
  app.get("/items", { schema: { querystring: Query, response: { 200: Type.Array(Type.String()) } } }, async () => []);
  app.post("/items/:id", { schema: { params: Type.Object(item), body: Body } }, async () => "");
  app.get("/open", { schema: { security: [] } }, async () => "");
  const pinned = {
    querystring: Type.Object({ n: Type.Integer() }),
    response: { 422: Type.Object({ own: Type.String() }) },
  };
  app.get("/pinned", { schema: pinned }, async () => ({ own: "" }));
  const document = (await app.inject({ url: "/openapi.json" })).json<{
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  }>();
  return { document, op: (path: string, method: string) => document.paths[path]?.[method] as Operation };
}

describe("the OpenAPI document", () => {
  it("makes a parameter or body property with a default optional, and leaves the route's schemas alone", async () => {
    const { op } = await documentOf();
    const list = op("/items", "get");
    expect(Object.fromEntries(list.parameters.map((p) => [p.name, p.required]))).toEqual({ page: false, q: true });
    const body = op("/items/{id}", "post").requestBody?.content["application/json"]?.schema;
    expect(body?.required).toEqual(["name"]);
    expect(Object.keys(body?.properties ?? {})).toEqual(["name", "size"]);
    // The validator still fills the default in, and still requires what has none.
    const post = (payload: object) => app?.inject({ method: "POST", url: "/items/1", payload });
    expect((await post({ name: "a" }))?.statusCode).toBe(200);
    expect((await post({ size: 3 }))?.json()).toEqual({ message: "body.name: field required" });
  });

  it("declares the errors the server answers, as the service formats them", async () => {
    const { document, op } = await documentOf({ securedStatuses: [429] });
    const statuses = (path: string, method: string) => Object.keys(op(path, method).responses);
    // Parameters refused → 422 (the formatter's status), credentials, rate limit, failure, closing.
    expect(statuses("/items", "get")).toEqual(["200", "401", "422", "429", "500", "503"]);
    // A body: not JSON (400), too large, wrong type; a path id: unknown (404), unreadable (400), too long (414).
    expect(statuses("/items/{id}", "post")).toEqual([
      "200",
      "400",
      "401",
      "404",
      "413",
      "414",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    // No credentials taken: no 401 and no 429.
    expect(statuses("/open", "get")).toEqual(["200", "500", "503"]);
    // A status the route declares keeps the route's schema.
    expect(op("/pinned", "get").responses["422"]?.content?.["application/json"]?.schema).toMatchObject({
      properties: { own: { type: "string" } },
    });
    expect(op("/pinned", "get").responses["401"]?.content?.["application/json"]).toEqual({
      schema: { $ref: "#/components/schemas/Problem" },
      example: { message: "Missing or invalid credentials" },
    });
    expect(op("/items/{id}", "post").responses["413"]).toEqual({
      description: "Payload Too Large",
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Problem" },
          example: { message: "Request body is too large" },
        },
      },
    });
    expect(document.components.schemas.Problem).toEqual(JSON.parse(JSON.stringify(ErrorBody)));
  });

  it("declares no error answers for a service that gives no error schema", async () => {
    const { op } = await documentOf();
    expect(Object.keys(op("/items", "get").responses)).toEqual(["200"]);
  });
});
