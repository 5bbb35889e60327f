/**
 * The Fastify server every service starts from: TypeBox schemas (validation, types and OpenAPI from one
 * definition), request ids, a body-size limit, the service's own error format, `GET /openapi.json`,
 * interactive docs at `/docs`, `GET /health`, and graceful shutdown.
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
import type { Logger } from "../log/logger.ts";
import { HttpError, toHttpError } from "./httpError.ts";
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
  openapi: {
    title: string;
    version: string;
    description?: string;
    servers?: { url: string; description?: string }[];
    securitySchemes?: Record<string, unknown>;
    /** Applied to every operation unless a route sets its own `security`. */
    security?: Record<string, string[]>[];
  };
  /** Response header carrying the request id; an incoming one is reused when well-formed. */
  requestIdHeader?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function createHttpServer(parameters: CreateHttpServerParameters): Promise<HttpServer> {
  const requestIdHeader = parameters.requestIdHeader ?? "x-request-id";
  const app = Fastify({
    loggerInstance: parameters.logger,
    bodyLimit: parameters.bodyLimit,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers[requestIdHeader];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // One access-log line per request (the onResponse hook below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: "idle",
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpServer;
  app.setValidatorCompiler(createValidatorCompiler());
  // A JSON API: plain text bodies get 415 rather than a confusing validation error.
  app.removeContentTypeParser("text/plain");

  app.addHook("onRequest", async (request, reply) => {
    reply.header(requestIdHeader, request.id);
  });
  app.addHook("onResponse", async (request, reply) => {
    if (!parameters.logger.isLevelEnabled("info")) return;
    request.log.info({ req: request, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, "request");
  });

  const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const httpError = toHttpError(error);
    if (httpError.statusCode >= 500) request.log.error({ err: error }, "request failed");
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

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: parameters.openapi.title,
        version: parameters.openapi.version,
        description: parameters.openapi.description,
      },
      servers: parameters.openapi.servers,
      components: { securitySchemes: parameters.openapi.securitySchemes as never },
      security: parameters.openapi.security,
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get(
    "/health",
    {
      schema: {
        tags: ["System"],
        summary: "Liveness",
        security: [],
        response: { 200: { type: "object", properties: { status: { type: "string" } } } },
      },
    },
    async () => ({ status: "ok" }),
  );
  return app;
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
