/**
 * Login and logout of the authorization host: `GET /login`, `POST /login`, `POST /logout`, and the login page
 * other routes show to a visitor without a session.
 *
 * The login form continues somewhere fixed, never to a URL it carries (no open redirect): to the
 * authorization request it carries as hidden fields (`next=authorize`, re-checked on POST and continued
 * with `GET /oauth/authorize?<the same parameters>`), or to the applications page. Failed logins are
 * throttled per account and per address (`services/loginThrottle.ts`); a throttled attempt gets 429 before
 * its password is looked at. Answers: 303 on success; the login page again with 400 (CSRF), 422 (wrong email
 * or password, or empty fields) or 429 (throttled).
 */

import type { HttpServer } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import { carriedParameters } from "../../domain/authorizationRequest.ts";
import type { CheckedAuthorization } from "../../services/authorization.ts";
import { answerAuthorizationError, formTargetsOf } from "./authorizationAnswers.ts";
import {
  type AuthPagesDependencies,
  clearSessionCookie,
  currentSession,
  loginCsrfSecret,
  presentedLoginCsrfSecret,
  sessionCookieValue,
  setSessionCookie,
} from "./browserSession.ts";
import { CSRF_FIELD, csrfToken, csrfTokenMatches } from "./csrf.ts";
import { formOf, seeOther, sendPage, single } from "./pageScope.ts";
import { errorPage, type LoginNext, loginPage } from "./pages.ts";

type Carried = [string, string][];

/** What the login form's CSRF token is bound to: where the login continues. */
const loginBinding = (next: LoginNext, carried: Carried) =>
  next === "authorize" ? `authorize?${new URLSearchParams(carried)}` : "applications";

/** Where a successful login (or a logout from the consent page) continues. */
export const continuationOf = (next: LoginNext, carried: Carried) =>
  next === "authorize" ? `/oauth/authorize?${new URLSearchParams(carried)}` : "/account/applications";

export interface ShowLoginOptions {
  statusCode: number;
  next: LoginNext;
  carried: Carried;
  /** The checked authorization request the login continues, for the application's name and `form-action`. */
  checked?: CheckedAuthorization | undefined;
  email?: string | undefined;
  error?: string | undefined;
}

/** Answers with the login page (and its CSRF cookie when the browser has none). */
export function showLoginPage(
  deps: AuthPagesDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  o: ShowLoginOptions,
) {
  const secret = loginCsrfSecret(deps, request, reply);
  const page = loginPage({
    appName: o.checked?.client.name,
    next: o.next,
    carried: o.carried,
    csrfToken: csrfToken(secret, "login", loginBinding(o.next, o.carried)),
    email: o.email,
    error: o.error,
  });
  return sendPage(reply, o.statusCode, page, o.checked ? formTargetsOf(o.checked.request.redirectUri) : []);
}

const CONTROL_CHARACTERS = /\p{Cc}/u;

export function registerLoginRoutes(scope: HttpServer, deps: AuthPagesDependencies): void {
  const { authorization, sessions, loginThrottle, users } = deps.services;

  scope.get("/login", { schema: { hide: true } }, async (request, reply) => {
    if (await currentSession(deps, request)) return seeOther(reply, "/account/applications");
    return showLoginPage(deps, request, reply, { statusCode: 200, next: "applications", carried: [] });
  });

  scope.post("/login", { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request);
    const next: LoginNext = single(form, "next") === "applications" ? "applications" : "authorize";
    const carried = next === "authorize" ? carriedParameters(form) : [];
    const email = single(form, "email") ?? "";
    const password = single(form, "password") ?? "";

    const secret = presentedLoginCsrfSecret(request);
    if (!secret || !csrfTokenMatches(secret, "login", loginBinding(next, carried), form.get(CSRF_FIELD))) {
      return showLoginPage(deps, request, reply, {
        statusCode: 400,
        next,
        carried,
        email,
        error: "This sign-in form has expired or did not come from this site. Please sign in again.",
      });
    }

    let checked: CheckedAuthorization | undefined;
    if (next === "authorize") {
      try {
        checked = await authorization.check(form);
      } catch (error) {
        return answerAuthorizationError(deps, reply, error);
      }
    }
    const again = (statusCode: number, error: string) =>
      showLoginPage(deps, request, reply, { statusCode, next, carried, checked, email, error });

    if (!email || !password) return again(422, "Enter your email and your password.");
    const attempt = { email, address: request.ip };
    if (await loginThrottle.isThrottled(attempt)) {
      // The longest wait either limit can impose (the sliding estimate may free the attempt sooner).
      const waitSec = Math.max(loginThrottle.perEmail.windowSec, loginThrottle.perAddress.windowSec);
      reply.header("retry-after", String(waitSec));
      return again(429, `Too many failed sign-in attempts. Wait ${Math.ceil(waitSec / 60)} minutes, then try again.`);
    }
    // An email with control characters cannot be anyone's (and must not reach SQL); it fails like a wrong one.
    const user = CONTROL_CHARACTERS.test(email) ? undefined : await users.authenticate(email, password);
    if (!user) {
      await loginThrottle.recordFailure(attempt);
      return again(422, "Incorrect email or password.");
    }

    // A new session id at every login (no session fixation); the browser's previous session ends.
    await sessions.close(sessionCookieValue(request));
    setSessionCookie(deps, request, reply, await sessions.open(user.id));
    return seeOther(reply, continuationOf(next, carried));
  });

  scope.post("/logout", { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request);
    const session = await currentSession(deps, request);
    if (session && !csrfTokenMatches(session.csrfSecret, "logout", "", form.get(CSRF_FIELD))) {
      return sendPage(
        reply,
        400,
        errorPage("Sign-out refused", "This form has expired. Reload the page and try again."),
      );
    }
    await sessions.close(sessionCookieValue(request));
    clearSessionCookie(deps, request, reply);
    // From the consent page, back to the same authorization request (now showing the login page).
    const carried = carriedParameters(form);
    return seeOther(reply, carried.length > 0 ? continuationOf("authorize", carried) : "/login");
  });
}
