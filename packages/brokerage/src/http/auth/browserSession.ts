/**
 * The browser's side of a login session on the authorization host: which session a request carries, and the
 * cookies that carry it (see `cookies.ts`). Also what the page routes depend on, in one type.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { randomSecret } from "../../domain/secrets.ts";
import type { AuthorizationService } from "../../services/authorization.ts";
import type { LoginThrottle } from "../../services/loginThrottle.ts";
import type { ActiveSession, OpenedSession, SessionsService } from "../../services/sessions.ts";
import type { TokensService } from "../../services/tokens.ts";
import type { UsersService } from "../../services/users.ts";
import { LOGIN_CSRF_COOKIE, readCookie, SESSION_COOKIE, serializeCookie } from "./cookies.ts";

/** What the authorization host's pages use. */
export interface AuthPagesDependencies {
  services: {
    authorization: AuthorizationService;
    sessions: SessionsService;
    loginThrottle: LoginThrottle;
    users: Pick<UsersService, "authenticate">;
    tokens: Pick<TokensService, "listAuthorizedApps" | "revokeForUserAndClient">;
  };
  /** The public origin of the authorization host: the OAuth issuer (`iss`), and https there makes cookies Secure. */
  urls: { issuer(): string };
}

/** How long a login form stays usable (its CSRF cookie's lifetime). */
const LOGIN_FORM_TTL_SEC = 60 * 60;

/** Cookies are `Secure` when the host is public over https, or this request came over https. */
const secure = (deps: AuthPagesDependencies, request: FastifyRequest) =>
  request.protocol === "https" || deps.urls.issuer().startsWith("https:");

/** The session the request's cookie belongs to, if any and unexpired. */
export const currentSession = (
  deps: AuthPagesDependencies,
  request: FastifyRequest,
): Promise<ActiveSession | undefined> =>
  deps.services.sessions.find(readCookie(request.headers.cookie, SESSION_COOKIE));

/** The session cookie's value of the request (valid or not). */
export const sessionCookieValue = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE);

/** Gives the browser a newly opened session, and drops the login form's CSRF cookie (its job is done). */
export function setSessionCookie(
  deps: AuthPagesDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  session: OpenedSession,
) {
  const maxAgeSec = Math.floor(deps.services.sessions.ttlMs / 1000);
  reply.header(
    "set-cookie",
    serializeCookie(SESSION_COOKIE, session.cookieValue, { maxAgeSec, sameSite: "Lax", secure: secure(deps, request) }),
  );
  reply.header(
    "set-cookie",
    serializeCookie(LOGIN_CSRF_COOKIE, "", { maxAgeSec: 0, sameSite: "Strict", secure: secure(deps, request) }),
  );
}

export function clearSessionCookie(deps: AuthPagesDependencies, request: FastifyRequest, reply: FastifyReply) {
  reply.header(
    "set-cookie",
    serializeCookie(SESSION_COOKIE, "", { maxAgeSec: 0, sameSite: "Lax", secure: secure(deps, request) }),
  );
}

/**
 * The key of the login form's CSRF token: the `brokerage_login_csrf` cookie the browser has, or a new one
 * set on this reply. An existing one is kept so that two login tabs both work.
 */
export function loginCsrfSecret(deps: AuthPagesDependencies, request: FastifyRequest, reply: FastifyReply): Buffer {
  const existing = readCookie(request.headers.cookie, LOGIN_CSRF_COOKIE);
  if (existing) return Buffer.from(existing);
  const created = randomSecret();
  reply.header(
    "set-cookie",
    serializeCookie(LOGIN_CSRF_COOKIE, created, {
      maxAgeSec: LOGIN_FORM_TTL_SEC,
      sameSite: "Strict",
      secure: secure(deps, request),
    }),
  );
  return Buffer.from(created);
}

/** The login form's CSRF key the request carries, without setting one. */
export const presentedLoginCsrfSecret = (request: FastifyRequest): Buffer | undefined => {
  const value = readCookie(request.headers.cookie, LOGIN_CSRF_COOKIE);
  return value ? Buffer.from(value) : undefined;
};
