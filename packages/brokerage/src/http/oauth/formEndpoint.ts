/**
 * What the token and revocation endpoints share: an `application/x-www-form-urlencoded` body only (RFC 6749
 * §4.1.3, RFC 7009 §2.1), parsed strictly (a repeated parameter or one longer than 2,048 characters is an
 * `invalid_request`, RFC 6749 §3.1/§3.2; a parameter without a value counts as absent), every answer
 * `Cache-Control: no-store` (RFC 6749 §5.1), and every error in the RFC 6749 §5.2 JSON shape whatever went
 * wrong (wrong content type, oversized body, an unexpected failure): these endpoints never answer in the
 * trading hosts' `{code, message}` format.
 */
import { type HttpServer, toHttpError } from "@platform/kernel";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { OAUTH_ERROR_CODES, OAuthError } from "../../domain/oauthErrors.ts";

/** Longest parameter value accepted (the longest redirect URI that can be registered is 2,000 characters). */
export const MAX_PARAMETER_LENGTH = 2048;
/** Largest body accepted: a handful of parameters of at most 2,048 characters each. */
export const FORM_BODY_LIMIT = 16 * 1024;

const FORM = "application/x-www-form-urlencoded";

/** The form's parameters, each present at most once, with a non-empty value. */
export type FormParameters = Record<string, string>;

/**
 * Parses a form body. RFC 6749 §3.1: parameters without a value are treated as omitted; parameters must not
 * be repeated. Unknown parameters are kept (the routes ignore them, RFC 6749 §3.1).
 * @throws {OAuthError} `invalid_request`
 */
export function parseForm(body: string): FormParameters {
  const values = new Map<string, string>();
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (seen.has(name)) throw new OAuthError("invalid_request", `parameter ${name} is repeated`);
    seen.add(name);
    if (name.length > MAX_PARAMETER_LENGTH || value.length > MAX_PARAMETER_LENGTH) {
      throw new OAuthError(
        "invalid_request",
        `parameter ${name.slice(0, 40)} is longer than ${MAX_PARAMETER_LENGTH} characters`,
      );
    }
    if (value !== "") values.set(name, value);
  }
  return Object.fromEntries(values);
}

export const OAuthErrorBody = Type.Object(
  {
    error: Type.Union(OAUTH_ERROR_CODES.map((c) => Type.Literal(c))),
    error_description: Type.String(),
  },
  { $id: "OAuthError", examples: [{ error: "invalid_grant", error_description: "authorization code expired" }] },
);

/** A form parameter for the OpenAPI document (the parser has checked repeats and lengths already). */
export const FormParameter = (description: string, example?: string) =>
  Type.Optional(
    Type.String({ maxLength: MAX_PARAMETER_LENGTH, description, ...(example ? { examples: [example] } : {}) }),
  );

const notAForm = () => new OAuthError("invalid_request", `the request body must be ${FORM}`);

function toOAuthError(error: unknown, request: FastifyRequest): OAuthError {
  if (error instanceof OAuthError) return error;
  // No body at all (nothing to parse): the body schema's "must be object" would say it less clearly.
  if ((error as { validation?: unknown }).validation && request.body == null) return notAForm();
  const code = (error as FastifyError | undefined)?.code;
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return new OAuthError("invalid_request", `request body is larger than ${FORM_BODY_LIMIT} bytes`);
  }
  const http = toHttpError(error);
  // Too many failed credentials from the client's address (kernel's limit; Retry-After is already set).
  if (http.statusCode === 429) return new OAuthError("temporarily_unavailable", http.message, { statusCode: 429 });
  if (http.statusCode >= 500) return new OAuthError("server_error", "internal server error");
  return new OAuthError("invalid_request", http.message);
}

function sendOAuthError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const oauth = toOAuthError(error, request);
  if (oauth.statusCode >= 500) request.log.error({ err: error }, "request failed");
  // RFC 9110 §15.5.2: a 401 names the scheme it wants; RFC 6749 §5.2: the one the client used (Basic).
  if (oauth.statusCode === 401) reply.header("www-authenticate", 'Basic realm="brokerage", charset="UTF-8"');
  return reply.code(oauth.statusCode).type("application/json; charset=utf-8").send(oauth.toJSON());
}

/**
 * Registers `routes` in a scope of `app` that takes form bodies only and answers every error as OAuth JSON.
 * The scope's routes read `request.body` as {@link FormParameters}.
 */
export function registerFormEndpoint(app: HttpServer, routes: (scope: HttpServer) => void) {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(FORM, { parseAs: "string", bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    scope.addContentTypeParser("*", (_request, _payload, done) => {
      done(notAForm(), undefined);
    });
    scope.addHook("onSend", async (_request, reply) => {
      reply.header("cache-control", "no-store");
      reply.header("pragma", "no-cache");
    });
    scope.setErrorHandler(sendOAuthError);
    routes(scope as unknown as HttpServer);
  });
}

/** The form body of a request of a {@link registerFormEndpoint} scope, or an `invalid_request` when it had none. */
export function formOf(request: FastifyRequest): FormParameters {
  if (!request.body || typeof request.body !== "object") throw notAForm();
  return request.body as FormParameters;
}
