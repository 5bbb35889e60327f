/**
 * What the authorization host's page routes share: a Fastify scope that takes HTML form bodies only (kept
 * as `URLSearchParams`, so a repeated parameter stays visible to the checks) and answers every error as an
 * HTML page, never JSON and never a redirect; and the small helpers to answer with a page or a redirect.
 */
import { HttpError, type HttpServer, toHttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorPage } from "./pages.ts";
import { contentSecurityPolicy } from "./securityHeaders.ts";

const FORM = "application/x-www-form-urlencoded";

/** Largest form accepted: the login and consent forms carry an authorization request (≤ ~5 KB) and little else. */
export const PAGE_FORM_BODY_LIMIT = 16 * 1024;

/** Sends an HTML page; `formTargets` widens the page's `form-action` (see `contentSecurityPolicy`). */
export function sendPage(reply: FastifyReply, statusCode: number, page: string, formTargets: readonly string[] = []) {
  if (formTargets.length > 0) reply.header("content-security-policy", contentSecurityPolicy(formTargets));
  return reply.code(statusCode).type("text/html; charset=utf-8").send(page);
}

/** 303 See Other: after a form POST the browser follows with a GET (RFC 9700 §4.12: never 307 here). */
export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header("location", location).send();

/** The request's query string as sent, repeated parameters included. */
export function queryOf(request: FastifyRequest): URLSearchParams {
  const at = request.url.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1));
}

/** The form body of a POST of a page scope. */
export function formOf(request: FastifyRequest): URLSearchParams {
  if (!(request.body instanceof URLSearchParams)) throw new HttpError(400, `the request body must be ${FORM}`);
  return request.body;
}

/** The one value of a form field; undefined when absent, empty or repeated. */
export function single(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  return values.length === 1 && values[0] ? values[0] : undefined;
}

const ERROR_MESSAGES: Record<number, string> = {
  404: "There is no page at this address.",
  413: "The form sent was too large.",
  415: "This page accepts only forms sent by its own pages.",
};

function sendErrorPage(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const http = toHttpError(error);
  if (http.statusCode >= 500) {
    request.log.error({ err: error }, "request failed");
    return sendPage(
      reply,
      500,
      errorPage("Something went wrong", "Something went wrong on our side. Please try again."),
    );
  }
  const status = http.statusCode;
  return sendPage(reply, status, errorPage("This request cannot be handled", ERROR_MESSAGES[status] ?? http.message));
}

/** Registers `routes` in a scope that parses HTML forms and answers errors as pages. */
export function registerPageScope(app: HttpServer, routes: (scope: HttpServer) => void): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(FORM, { parseAs: "string", bodyLimit: PAGE_FORM_BODY_LIMIT }, (_request, body, done) =>
      done(null, new URLSearchParams(body as string)),
    );
    scope.addContentTypeParser("*", (_request, _payload, done) =>
      done(new HttpError(415, `this page accepts ${FORM} only`), undefined),
    );
    scope.setErrorHandler(sendErrorPage);
    routes(scope as unknown as HttpServer);
  });
}
