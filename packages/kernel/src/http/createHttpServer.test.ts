import { connect } from "node:net";
import { Writable } from "node:stream";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../log/logger.ts";
import type { BodyLeniency } from "./bodyLeniency.ts";
import {
  closeGracefully,
  createHttpServer,
  DEFAULT_OPENAPI_CONTACT,
  type ErrorFormatter,
  type HttpServer,
} from "./createHttpServer.ts";
import { HttpError } from "./httpError.ts";

const formatError: ErrorFormatter = (e) => ({ statusCode: e.statusCode, body: { error: e.message, code: e.code } });

function captureLogs() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: "info", destination }) };
}

let app: HttpServer | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(
  setup: (app: HttpServer) => void,
  logger = createLogger({ level: "silent" }),
  bodies?: BodyLeniency,
  bodyLimit = 1024,
) {
  app = await createHttpServer({
    logger,
    bodyLimit,
    formatError,
    openapi: { title: "t", version: "1", description: "d" },
    bodies,
  });
  setup(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

describe("createHttpServer", () => {
  it("formats every kind of error with the service's formatter, never a raw 500", async () => {
    const url = await start((a) => {
      a.post(
        "/echo",
        { schema: { body: Type.Object({ n: Type.Integer() }, { additionalProperties: false }) } },
        async (r) => r.body,
      );
      a.get("/items/:id", async (r) => r.params);
      a.get("/teapot", async () => {
        throw new HttpError(418, "short and stout", "TEAPOT");
      });
      a.get("/bug", async () => {
        throw new Error("secret internals");
      });
    });
    const post = (body: string, type = "application/json") =>
      fetch(`${url}/echo`, { method: "POST", body, headers: { "content-type": type } });
    expect(await (await post('{"n":1}')).json()).toEqual({ n: 1 });
    const cases: [Response, number, string | undefined][] = [
      [await post('{"n":"1"}'), 400, "INVALID_PARAM"],
      [await post("{}"), 400, "MISSING_PARAM"],
      [await post('{"n":1,"x":2}'), 400, "INVALID_PARAM"],
      [await post("{bad"), 400, "INVALID_BODY"],
      [await post(JSON.stringify({ n: 1, pad: "x".repeat(2000) })), 413, "BODY_TOO_LARGE"],
      [await post("n=1", "application/x-www-form-urlencoded"), 415, "UNSUPPORTED_MEDIA_TYPE"],
      [await fetch(`${url}/teapot`), 418, "TEAPOT"],
      [await fetch(`${url}/bug`), 500, "INTERNAL_SERVER_ERROR"],
      [await fetch(`${url}/missing`), 404, "NOT_FOUND"],
      // Refused by the router itself, before any route.
      [await fetch(`${url}/items/%E0%A4%A`), 400, "FST_ERR_BAD_URL"],
      [await fetch(`${url}/items/${"x".repeat(101)}`), 414, "FST_ERR_MAX_PARAM_LENGTH"],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      const body = await res.json();
      expect(body.code).toBe(code);
      expect(body.error).not.toContain("secret internals");
    }
  });

  it("answers a NUL in any text of a request as a bad value (PostgreSQL text cannot hold one: it was a 500)", async () => {
    const url = await start(
      (a) => {
        a.post(
          "/echo",
          {
            schema: {
              querystring: Type.Object({ q: Type.Optional(Type.String()) }),
              body: Type.Object({ names: Type.Array(Type.String()) }, { additionalProperties: false }),
            },
          },
          async (r) => r.body,
        );
      },
      undefined,
      undefined,
      100_000,
    );
    const post = (query: string, body: unknown) =>
      fetch(`${url}/echo${query}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const inQuery = await post("?q=a%00b", { names: [] });
    expect(inQuery.status).toBe(400);
    expect(await inQuery.json()).toEqual({
      error: "query.q: must not contain the NUL character",
      code: "INVALID_PARAM",
    });
    const inBody = await post("", { names: ["ok", "\u0000"] });
    expect(inBody.status).toBe(400);
    expect(await inBody.json()).toEqual({
      error: "body.names.1: must not contain the NUL character",
      code: "INVALID_PARAM",
    });
    expect(await (await post("?q=a", { names: ["ok"] })).json()).toEqual({ names: ["ok"] });
    // Valid JSON nested deeper than a recursive walk can go (the fuzzer's case: it was a 500).
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    for (const body of [deep, `{"names":${deep}}`]) {
      const response = await fetch(`${url}/echo`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
    }
  });

  it("lets in-flight requests finish on graceful close and refuses new ones", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    const url = await start((a) => {
      a.get("/slow", async () => {
        entered();
        await gate;
        return { done: true };
      });
    });
    const inflight = fetch(`${url}/slow`);
    await inHandler;
    const closing = closeGracefully(app as HttpServer, 5_000);
    setTimeout(release, 100);
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
    await expect(fetch(`${url}/slow`)).rejects.toThrow();
    app = undefined;
  });

  it("answers a request arriving while it closes 503 in the service's format, with Connection: close", async () => {
    const { lines, logger } = captureLogs();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    let closeStarted!: () => void;
    const closingNow = new Promise<void>((r) => {
      closeStarted = r;
    });
    let reached = 0;
    await start((a) => {
      a.get("/slow", async () => {
        entered();
        await gate;
        return { done: true };
      });
      a.get("/x", async () => {
        reached++;
        return { ok: true };
      });
      // After the server's own preClose hook (registered first): the closing state is set when this runs.
      a.addHook("preClose", async () => closeStarted());
    }, logger);
    const server = app as HttpServer;
    const secondParsed = new Promise<void>((r) => {
      server.server.on("request", (req) => {
        if (req.url === "/x") r();
      });
    });
    // One kept-alive connection: busy with /slow, so the close does not cut it, and the next request on it
    // arrives while the server closes (a new connection would be refused once the listener is closed).
    const socket = connect((server.server.address() as { port: number }).port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += String(chunk);
    });
    const socketClosed = new Promise<void>((r) => socket.on("close", () => r()));
    socket.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await inHandler;
    const closing = closeGracefully(server, 5_000);
    await closingNow;
    socket.write("GET /x HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: second-1\r\n\r\n");
    await secondParsed;
    release();
    await socketClosed;
    await closing;
    app = undefined;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    const [head = "", body] = (second as string).split("\r\n\r\n");
    expect(head.toLowerCase()).toContain("connection: close");
    expect(head.toLowerCase()).toContain("content-type: application/json");
    expect(head.toLowerCase()).toContain("x-request-id: second-1");
    expect(JSON.parse(body as string)).toEqual({ error: "Service unavailable", code: "SERVICE_UNAVAILABLE" });
    expect(reached).toBe(0);
    // An expected refusal: the access log records it, no error is logged.
    await vi.waitFor(() => expect(lines.join("")).toContain('"status":503'));
    expect(lines.join("")).not.toContain('"level":"error"');
  });

  it("answers 503 in the service's format on a new connection while a preClose hook holds the close", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let closeStarted!: () => void;
    const closingNow = new Promise<void>((r) => {
      closeStarted = r;
    });
    const url = await start((a) => {
      a.get("/x", async () => ({ ok: true }));
      // As the WebSocket routes' preClose (closing their sockets with a grace): the listener is still open.
      a.addHook("preClose", async () => {
        closeStarted();
        await gate;
      });
    });
    const closing = closeGracefully(app as HttpServer, 5_000);
    await closingNow;
    const refused = await fetch(`${url}/x`, { headers: { "x-request-id": "during-close" } });
    release();
    await closing;
    app = undefined;
    expect(refused.status).toBe(503);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.headers.get("x-request-id")).toBe("during-close");
    expect(await refused.json()).toEqual({ error: "Service unavailable", code: "SERVICE_UNAVAILABLE" });
  });

  it("never logs credentials", async () => {
    const { lines, logger } = captureLogs();
    const url = await start((a) => {
      a.get("/x", async () => ({ ok: true }));
    }, logger);
    await fetch(`${url}/x?apikey=SECRET1&chainid=1`, {
      headers: { authorization: "Bearer SECRET2", "x-service-api-key": "SECRET3" },
    });
    // The request's line is written once the response went out: wait for it before checking.
    await vi.waitFor(() => expect(lines.join("")).toContain('"msg":"request"'));
    const text = lines.join("");
    expect(text).toContain('"url":"/x?apikey=[REDACTED]&chainid=1"');
    expect(text).not.toMatch(/SECRET\d/);
  });

  it("writes no access line when its logger says not to (a terminal without LOG_REQUESTS), failures still", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const url = await start(
      (a) => {
        a.get("/x", async () => ({ ok: true }));
        a.get("/boom", async () => {
          throw new Error("boom");
        });
      },
      createLogger({ level: "info", destination, requests: false }),
    );
    expect((await fetch(`${url}/x`)).status).toBe(200);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    await app?.close();
    app = undefined;
    const messages = lines.map((l) => JSON.parse(l).msg);
    expect(messages).toContain("request failed");
    expect(messages).not.toContain("request");
  });
});

describe("request bodies", () => {
  const Body = Type.Object(
    {
      n: Type.Integer(),
      note: Type.Optional(Type.String()),
      memo: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      inner: Type.Optional(
        Type.Object({ a: Type.Optional(Type.String()), b: Type.Integer() }, { additionalProperties: false }),
      ),
      list: Type.Optional(Type.Array(Type.Object({ x: Type.Optional(Type.Integer()) }))),
    },
    { additionalProperties: false },
  );
  const routes = (seen: unknown[]) => (a: HttpServer) => {
    a.post("/echo", { schema: { body: Body } }, async (r) => {
      seen.push(r.body);
      return { body: r.body };
    });
    a.delete("/thing", async (r) => ({ body: r.body ?? "none" }));
  };
  /** A POST of `text` with this Content-Type; `undefined`: none at all (a byte body, which fetch does not label). */
  const post = (url: string, text: string, type: string | undefined) =>
    fetch(`${url}/echo`, {
      method: "POST",
      body: type === undefined ? new TextEncoder().encode(text) : text,
      headers: type === undefined ? {} : { "content-type": type },
    });
  const answer = async (res: Response) => ({ status: res.status, body: await res.json() });

  it("are strict by default: JSON only as application/json, undeclared fields and nulls refused", async () => {
    const url = await start(routes([]));
    const json = "application/json";
    expect(await answer(await post(url, '{"n":1}', undefined))).toMatchObject({ status: 415 });
    expect(await answer(await post(url, '{"n":1}', "text/plain;charset=UTF-8"))).toMatchObject({
      status: 415,
      body: { code: "UNSUPPORTED_MEDIA_TYPE" },
    });
    expect(await answer(await post(url, '{"n":1,"x":2}', json))).toMatchObject({
      status: 400,
      body: { error: "body.x: unknown field" },
    });
    expect(await answer(await post(url, '{"n":1,"note":null}', json))).toMatchObject({
      status: 400,
      body: { error: "body.note: must be string" },
    });
    // An empty body labelled JSON is no body: a DELETE goes through, a POST is told what it lacks.
    const del = await fetch(`${url}/thing`, { method: "DELETE", headers: { "content-type": json } });
    expect(await answer(del)).toEqual({ status: 200, body: { body: "none" } });
    expect(await answer(await post(url, "", json))).toMatchObject({
      status: 400,
      body: { error: "body: must be object" },
    });
    expect(await answer(await post(url, " \n", json))).toMatchObject({ status: 400, body: { code: "INVALID_PARAM" } });
  });

  it("read JSON without a Content-Type or as text/plain where the service says so; other types stay 415", async () => {
    const url = await start(routes([]), undefined, { jsonWithoutContentType: true, jsonFromTextPlain: true });
    expect(await answer(await post(url, '{"n":1}', undefined))).toEqual({ status: 200, body: { body: { n: 1 } } });
    expect(await answer(await post(url, '{"n":2}', "text/plain;charset=UTF-8"))).toEqual({
      status: 200,
      body: { body: { n: 2 } },
    });
    for (const type of [undefined, "text/plain"]) {
      expect(await answer(await post(url, "n=1", type))).toMatchObject({ status: 400, body: { code: "INVALID_BODY" } });
    }
    expect(await answer(await post(url, '{"n":1}', "application/xml"))).toMatchObject({ status: 415 });
    expect(await answer(await post(url, "n=1", "application/x-www-form-urlencoded"))).toMatchObject({ status: 415 });
    // Fastify's guard against prototype poisoning holds for every way in.
    expect(await answer(await post(url, '{"n":1,"__proto__":{"x":1}}', undefined))).toMatchObject({ status: 400 });
    // Without a body there is nothing to label.
    const del = await fetch(`${url}/thing`, { method: "DELETE" });
    expect(await answer(del)).toEqual({ status: 200, body: { body: "none" } });
  });

  it("drop undeclared fields (nested too) and read null as absent where the service says so", async () => {
    const seen: unknown[] = [];
    const url = await start(routes(seen), undefined, { ignoreUnknownFields: true, nullAsAbsent: true });
    const sent = {
      n: 1,
      order_id: "x",
      note: null,
      memo: null,
      inner: { b: 2, a: null, extra: true },
      list: [{ x: null, y: 1 }, { x: 3 }],
    };
    const res = await post(url, JSON.stringify(sent), "application/json");
    expect(await answer(res)).toEqual({
      status: 200,
      body: { body: { n: 1, memo: null, inner: { b: 2 }, list: [{}, { x: 3 }] } },
    });
    expect(seen).toEqual([{ n: 1, memo: null, inner: { b: 2 }, list: [{}, { x: 3 }] }]);
    // A required field's null is still refused: it is not "absent" the handler could do without.
    expect(await answer(await post(url, '{"n":null}', "application/json"))).toMatchObject({
      status: 400,
      body: { error: "body.n: must be integer" },
    });
    expect(await answer(await post(url, '{"n":1,"inner":{"b":null}}', "application/json"))).toMatchObject({
      status: 400,
    });
  });
});

describe("error answers and logs", () => {
  it("never show the key of an RPC URL named in an error, whatever the status", async () => {
    const { lines, logger } = captureLogs();
    const rpc = "https://eth.example/v3/SECRETKEY?apikey=SECRET2";
    const url = await start((a) => {
      a.get("/upstream", async () => {
        throw new HttpError(502, `Chain 1 did not answer at ${rpc}`, "UPSTREAM_RPC_ERROR");
      });
      a.get("/simulation", async () => {
        throw new HttpError(400, `Simulating the fill failed: HTTP request failed. URL: ${rpc}`, "SIMULATION_ERROR");
      });
      a.get("/bug", async () => {
        throw new Error(`fetch failed at ${rpc}`);
      });
    }, logger);
    const answers = await Promise.all(
      ["/upstream", "/simulation", "/bug"].map(async (path) => {
        const res = await fetch(`${url}${path}`);
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(answers).toEqual([
      { status: 502, body: { error: "Chain 1 did not answer at https://eth.example/…", code: "UPSTREAM_RPC_ERROR" } },
      {
        status: 400,
        body: {
          error: "Simulating the fill failed: HTTP request failed. URL: https://eth.example/…",
          code: "SIMULATION_ERROR",
        },
      },
      { status: 500, body: { error: "Internal server error", code: "INTERNAL_SERVER_ERROR" } },
    ]);
    const logged = lines.join("");
    expect(logged).toContain("fetch failed at https://eth.example/…"); // the 500's cause, in the log only
    expect(logged).not.toContain("SECRET");
  });
});

describe("the OpenAPI document", () => {
  it("declares every tag, names a contact and a server, and describes responses by their status", async () => {
    app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      bodyLimit: 1024,
      formatError,
      openapi: {
        title: "t",
        version: "1",
        description: "d",
        tags: [{ name: "Things", description: "What the service keeps." }],
      },
    });
    const Thing = Type.Object({ n: Type.Integer() }, { $id: "Thing", examples: [{ n: 1 }] });
    app.get(
      "/things",
      { schema: { operationId: "listThings", tags: ["Things", "Extra"], response: { 200: Type.Array(Thing) } } },
      async () => [{ n: 1 }],
    );
    app.post("/things", { schema: { operationId: "createThing", tags: ["Things"], response: { 201: Thing } } }, () => ({
      n: 1,
    }));
    const document = (await app.inject({ url: "/openapi.json" })).json<{
      info: { contact?: unknown };
      servers?: unknown[];
      tags?: { name: string; description?: string }[];
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
      components: { schemas: Record<string, unknown> };
    }>();

    expect(document.info.contact).toEqual(DEFAULT_OPENAPI_CONTACT);
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    // The service's tags first, then the kernel's, then tags routes use without declaring them.
    expect(document.tags).toEqual([
      { name: "Things", description: "What the service keeps." },
      { name: "System", description: expect.any(String) },
      { name: "Extra" },
    ]);
    expect(document.paths["/things"]?.get?.responses["200"]?.description).toBe("OK");
    expect(document.paths["/things"]?.post?.responses["201"]?.description).toBe("Created");
    // A schema with an $id is a component of that name, not `def-0`.
    expect(Object.keys(document.components.schemas)).toEqual(["Thing"]);
    // The server's own routes: /health is an operation; the document and its viewer are not.
    expect(Object.keys(document.paths).sort()).toEqual(["/health", "/things"]);
  });
});
