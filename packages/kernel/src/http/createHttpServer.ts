/**
 * The Fastify server every service starts from: TypeBox schemas (validation, types and OpenAPI from one
 * definition), request ids, a body-size limit, JSON bodies read as the service's anchor reads them
 * (`bodyLeniency.ts`), the service's own error format, `GET /openapi.json`, interactive docs at `/docs`,
 * `GET /health`, and graceful shutdown.
 */
import { randomUUID } from "node:crypto";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import type { TrustProxy } from "../config/parsers.ts";
import { type Logger, logsRequests } from "../log/logger.ts";
import type { BodyLeniency } from "./bodyLeniency.ts";
import { HttpError, toHttpError } from "./httpError.ts";
import { completeDocument, type OpenApiDocument, type OpenApiErrors, type OpenApiTag } from "./openapiDocument.ts";
import { createValidatorCompiler } from "./validators.ts";

/** Turns an HttpError into the status, body and headers of the service's documented error format. */
export type ErrorFormatter = (
  error: HttpError,
  request: FastifyRequest,
) => { statusCode: number; body: unknown; headers?: Record<string, string> };

export type HttpServer = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface CreateHttpServerParameters {
  logger: Logger;
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  formatError: ErrorFormatter;
  openapi: OpenApiInfo;
  /** Response header carrying the request id; an incoming one is reused when well-formed. */
  requestIdHeader?: string;
  /**
   * What request bodies may be besides strict JSON, as the service's anchor accepts them; default: strict (a
   * body needs `Content-Type: application/json`, undeclared fields of a closed schema and `null` for a field
   * that does not accept it are refused). Scopes with parsers of their own (forms) are not affected.
   */
  bodies?: BodyLeniency;
  /**
   * Proxies whose `X-Forwarded-For`/`-Proto`/`-Host` are believed (the `TRUST_PROXY` option, Fastify's
   * `trustProxy`): `request.ip`, `request.protocol` and the access log's client address follow them. Default
   * false: the socket's peer is the client and forwarding headers are ignored.
   */
  trustProxy?: TrustProxy;
}

export type { OpenApiErrors, OpenApiTag };

/**
 * What a service says about its API in `/openapi.json`. Every operation a route documents also needs its own
 * `operationId` (camelCase, the method name a generated client gets: the anchor's client name where there is
 * one), `summary`, `description`, `tags` and response `examples`; `e2e/openapi.test.ts` lints each service's
 * document with Spectral's `spectral:oas` rules.
 */
export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** Who answers for the API; default {@link DEFAULT_OPENAPI_CONTACT}. */
  contact?: { name?: string; url?: string; email?: string };
  /** Default: the origin the document is served from (`/`), so clients resolve paths against it. */
  servers?: { url: string; description?: string }[];
  /**
   * The service's tags with their descriptions, in the order the docs show them. A tag a route uses without
   * being listed here is still declared (by name, after these), so every operation's tag is defined.
   */
  tags?: OpenApiTag[];
  securitySchemes?: Record<string, unknown>;
  /** Applied to every operation unless a route sets its own `security`. */
  security?: Record<string, string[]>[];
  /**
   * The schema of the bodies `formatError` produces: with it, every operation declares each error the server
   * itself can answer (validation, credentials, unknown path id, body too large or of the wrong type, failure,
   * closing), with the status and example body `formatError` gives, unless the route declares that status.
   */
  errors?: OpenApiErrors;
}

/** The contact of every service's API document unless the service names its own. */
export const DEFAULT_OPENAPI_CONTACT = { name: "Platform maintainers" };

/** The tag of the server's own routes (`/health`). */
const SYSTEM_TAG: OpenApiTag = { name: "System", description: "Liveness of the service." };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The message of the 503 a request arriving while the server closes gets (as the OpenAPI example's). */
const SHUTTING_DOWN_MESSAGE = "Service unavailable";

/**
 * Fastify's `trustProxy` for a TRUST_PROXY value. A hop count n trusts the n nearest hops, whoever they are
 * (proxy-addr's `(address, i) => i < n`): Fastify 5.12 answers a bare number by trusting nothing, so it is
 * given as that function here. Like `true`, it is only safe when nothing but the proxies reaches the port.
 */
function trustProxyOf(trustProxy: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== "number") return trustProxy;
  return (_address, hop) => hop < trustProxy;
}

export async function createHttpServer(parameters: CreateHttpServerParameters): Promise<HttpServer> {
  const requestIdHeader = parameters.requestIdHeader ?? "x-request-id";
  const app = Fastify({
    loggerInstance: parameters.logger,
    bodyLimit: parameters.bodyLimit,
    trustProxy: trustProxyOf(parameters.trustProxy ?? false),
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers[requestIdHeader];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // One access-log line per request (the onResponse hook below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // Fastify's own 503 while closing has its own body, not the service's: the onRequest hook below answers it.
    // Fastify still sets `Connection: close` on every request that arrives while closing.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // A URL the router cannot read (bad percent-encoding, a path parameter over the length limit) is answered
    // before any route or error handler: in the service's error format too. No route context, so no serializer.
    frameworkErrors: (error, request, rawReply) => {
      const { statusCode, body, headers } = parameters.formatError(toHttpError(error), request);
      const reply = rawReply as FastifyReply;
      reply.header(requestIdHeader, request.id);
      if (headers) reply.headers(headers);
      reply.code(statusCode).type("application/json; charset=utf-8").send(JSON.stringify(body));
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpServer;
  const bodies = parameters.bodies ?? {};
  app.setValidatorCompiler(createValidatorCompiler(bodies));
  registerJsonParsers(app, bodies);

  // From the first step of `close()` (before the sockets' grace and the in-flight requests' end), a request is
  // answered 503 in the service's error format, as the OpenAPI documents declare, without running its route:
  // a load balancer sends it elsewhere. The first preClose hook, so no other hook's wait delays it.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (request, reply) => {
    reply.header(requestIdHeader, request.id);
    if (closing) throw new HttpError(503, SHUTTING_DOWN_MESSAGE, "SERVICE_UNAVAILABLE");
  });
  // A connection whose request was in flight when the close began is closed once it is idle again: Node closes
  // only the connections idle at that moment, so a client's keep-alive would hold the close to its timeout.
  // Not by `Connection: close` on that answer: a request already sent behind it gets its 503 first.
  app.addHook("onResponse", async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });
  app.addHook("onResponse", async (request, reply) => {
    // Off at a terminal unless asked (LOG_REQUESTS, or LOG_LEVEL=debug): see `createConfiguredLogger`.
    if (!logsRequests(parameters.logger)) return;
    request.log.info(
      { req: request, ip: request.ip, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "request",
    );
  });

  const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const httpError = toHttpError(error);
    // A refusal while closing is expected (the access log line records it), not a failure.
    const refusedClosing = closing && httpError.statusCode === 503;
    if (httpError.statusCode >= 500 && !refusedClosing) request.log.error({ err: error }, "request failed");
    const { statusCode, body, headers } = parameters.formatError(httpError, request);
    if (headers) reply.headers(headers);
    return reply.code(statusCode).type("application/json; charset=utf-8").send(body);
  };
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new HttpError(404, `Not found: ${request.method} ${request.url.split("?")[0]}`, "NOT_FOUND"),
      request,
      reply,
    ),
  );

  const openapi = parameters.openapi;
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: openapi.title,
        version: openapi.version,
        description: openapi.description,
        contact: openapi.contact ?? DEFAULT_OPENAPI_CONTACT,
      },
      servers: openapi.servers ?? [{ url: "/", description: "The server this document is served from" }],
      components: { securitySchemes: openapi.securitySchemes as never },
      security: openapi.security,
    },
    // A schema with an `$id` becomes a component of that name (a generated client's model name), not `def-0`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
    },
    transformObject: (generated) => {
      if (!("openapiObject" in generated)) return generated.swaggerObject;
      // The generator types the document as any OpenAPI version's; this one is 3.1.
      const document = generated.openapiObject as OpenApiDocument;
      return completeDocument(document, {
        tags: [...(openapi.tags ?? []), SYSTEM_TAG],
        errors: openapi.errors,
        formatError: parameters.formatError,
      }) as typeof generated.openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  // The document and its viewer are not operations of the API: they stay out of the document.
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get(
    "/health",
    {
      schema: {
        operationId: "getHealth",
        tags: [SYSTEM_TAG.name],
        summary: "Liveness",
        description: "Answers while the server accepts requests; needs no key.",
        security: [],
        response: {
          200: {
            type: "object",
            required: ["status"],
            properties: { status: { type: "string", enum: ["ok"] } },
            examples: [{ status: "ok" }],
          },
        },
      },
    },
    async () => ({ status: "ok" as const }),
  );
  return app;
}

/**
 * JSON bodies: an empty one (a DELETE some clients send with `Content-Type: application/json`) is no body;
 * plain text is JSON only where the service says so, else a 415 rather than a confusing validation error; a
 * body without a Content-Type is read as JSON where the service says so (else Fastify's 415).
 */
function registerJsonParsers(app: HttpServer, bodies: BodyLeniency) {
  // Fastify's own parser, with its refusal of `__proto__` and `constructor.prototype` keys.
  const parseJson = app.getDefaultJsonParser("error", "error");
  const parser = (
    request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, body?: unknown) => void,
  ) => {
    if (String(body).trim() === "") return done(null, undefined);
    return parseJson(request, String(body), done);
  };
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, parser);
  if (bodies.jsonFromTextPlain) app.addContentTypeParser("text/plain", { parseAs: "string" }, parser);
  if (bodies.jsonFromFormUrlencoded) {
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, parser);
  }
  if (bodies.jsonWithoutContentType) {
    // Labelled before Fastify picks a parser (after the onRequest hooks); a body of another type stays a 415.
    app.addHook("onRequest", async (request) => {
      const headers = request.raw.headers;
      const hasBody = headers["transfer-encoding"] !== undefined || Number(headers["content-length"]) > 0;
      if (headers["content-type"] === undefined && hasBody) headers["content-type"] = "application/json";
    });
  }
}

/**
 * Stops accepting connections, lets in-flight requests finish, and after `timeoutMs` cuts what is left.
 */
export async function closeGracefully(app: HttpServer, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), timeoutMs);
  timer.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
