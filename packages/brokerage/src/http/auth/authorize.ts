/**
 * The authorization endpoint and its consent (RFC 6749 §4.1.1–4.1.2, Alpaca Connect): `GET /oauth/authorize`
 * shows the login page (no session) or the consent page, and `POST /oauth/authorize/consent` answers the
 * client. Errors follow RFC 6749 §4.1.2.1: an unknown client or an unregistered redirect URI is a 400 page
 * and never a redirect; every other error of the request is redirected to the client with `error`,
 * `error_description`, `state` and `iss`.
 *
 * The consent POST trusts nothing the form carries: the session, the CSRF token (bound to the session and to
 * this very request), the request itself (client active, URI registered, parameters valid), the decision and
 * the chosen accounts (the user's, of the envs asked) are all checked again; a failed CSRF check or a bad
 * choice is a 400 page, not a redirect. Allow → 303 to `redirect_uri?code=…&state=…&iss=…`; Deny → 303 with
 * `error=access_denied`.
 *
 * `registerAuthorizationPages` also puts the host's security headers on every response of the host
 * (`securityHeaders.ts`) and registers the login routes (`login.ts`).
 */
import type { HttpServer } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import { carriedParameters } from "../../domain/authorizationRequest.ts";
import { OAuthError } from "../../domain/oauthErrors.ts";
import { type CheckedAuthorization, ConsentChoiceError } from "../../services/authorization.ts";
import type { ActiveSession } from "../../services/sessions.ts";
import { answerAuthorizationError, formTargetsOf, redirectToClient } from "./authorizationAnswers.ts";
import { type AuthPagesDependencies, currentSession } from "./browserSession.ts";
import { CSRF_FIELD, csrfToken, csrfTokenMatches } from "./csrf.ts";
import { registerLoginRoutes, showLoginPage } from "./login.ts";
import { formOf, queryOf, registerPageScope, sendPage, single } from "./pageScope.ts";
import { consentPage, errorPage } from "./pages.ts";
import { setSecurityHeaders } from "./securityHeaders.ts";

export type { AuthPagesDependencies } from "./browserSession.ts";

type Carried = [string, string][];

/** The consent form's CSRF binding: the exact authorization request it answers. */
const consentBinding = (carried: Carried) => new URLSearchParams(carried).toString();

async function showConsentPage(
  deps: AuthPagesDependencies,
  reply: FastifyReply,
  session: ActiveSession,
  checked: CheckedAuthorization,
  carried: Carried,
) {
  const offer = await deps.services.authorization.offer(session.userId, checked.request);
  const page = consentPage({
    appName: checked.client.name,
    scopes: checked.request.scopes,
    offer,
    carried,
    csrfToken: csrfToken(session.csrfSecret, "consent", consentBinding(carried)),
    logoutCsrfToken: csrfToken(session.csrfSecret, "logout"),
    userEmail: session.email,
  });
  // Chrome applies form-action to the redirect that follows the POST: the client's origin must be allowed.
  return sendPage(reply, 200, page, formTargetsOf(checked.request.redirectUri));
}

const refused = (reply: FastifyReply, message: string) =>
  sendPage(reply, 400, errorPage("Authorization refused", message));

export function registerAuthorizationPages(app: HttpServer, deps: AuthPagesDependencies): void {
  const { authorization } = deps.services;
  app.addHook("onRequest", setSecurityHeaders);

  registerPageScope(app, (scope) => {
    registerLoginRoutes(scope, deps);

    scope.get("/oauth/authorize", { schema: { hide: true } }, async (request: FastifyRequest, reply) => {
      const parameters = queryOf(request);
      let checked: CheckedAuthorization;
      try {
        checked = await authorization.check(parameters);
      } catch (error) {
        return answerAuthorizationError(deps, reply, error);
      }
      const carried = carriedParameters(parameters);
      const session = await currentSession(deps, request);
      if (!session) {
        return showLoginPage(deps, request, reply, { statusCode: 200, next: "authorize", carried, checked });
      }
      return showConsentPage(deps, reply, session, checked, carried);
    });

    scope.post("/oauth/authorize/consent", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      const carried = carriedParameters(form);
      const session = await currentSession(deps, request);
      if (!session) {
        return showLoginPage(deps, request, reply, {
          statusCode: 400,
          next: "authorize",
          carried,
          error: "Your session has ended. Sign in again to continue.",
        });
      }
      if (!csrfTokenMatches(session.csrfSecret, "consent", consentBinding(carried), form.get(CSRF_FIELD))) {
        return refused(
          reply,
          "This consent form has expired or did not come from this site. Start again from the application.",
        );
      }
      let checked: CheckedAuthorization;
      try {
        checked = await authorization.check(form);
      } catch (error) {
        return answerAuthorizationError(deps, reply, error);
      }
      const { request: authorizationRequest } = checked;
      const decision = single(form, "decision");
      if (decision === "deny") {
        const denied = new OAuthError("access_denied", "the user denied the request");
        return redirectToClient(
          deps,
          reply,
          authorizationRequest.redirectUri,
          { error: denied },
          authorizationRequest.state,
        );
      }
      if (decision !== "allow") return refused(reply, "Choose Allow or Deny.");

      const live = form.getAll("live_account");
      const paper = form.getAll("paper_account");
      if (live.length > 1 || paper.length > 1) return refused(reply, "Choose one account of each kind.");
      let code: string;
      try {
        code = await authorization.approve(session.userId, authorizationRequest, {
          liveAccountId: live[0] || undefined,
          paperAccountId: paper[0] || undefined,
        });
      } catch (error) {
        if (error instanceof ConsentChoiceError || error instanceof OAuthError) {
          return refused(
            reply,
            "The accounts chosen cannot be connected to this application. Start again from the application.",
          );
        }
        throw error;
      }
      return redirectToClient(deps, reply, authorizationRequest.redirectUri, { code }, authorizationRequest.state);
    });
  });
}
