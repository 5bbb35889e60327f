/**
 * The applications a signed-in user authorized, on the authorization host: `GET /account/applications` lists
 * them (their scopes and accounts), `POST /account/applications/revoke` revokes every token of one of them
 * at once (CSRF token bound to the session and to that client). `GET /` leads there. Without a session, the
 * login page is shown and continues here.
 */
import type { HttpServer } from "@platform/kernel";
import { type AuthPagesDependencies, currentSession } from "./browserSession.ts";
import { CSRF_FIELD, csrfToken, csrfTokenMatches } from "./csrf.ts";
import { showLoginPage } from "./login.ts";
import { formOf, registerPageScope, seeOther, sendPage, single } from "./pageScope.ts";
import { applicationsPage, errorPage } from "./pages.ts";

export function registerApplicationsPage(app: HttpServer, deps: AuthPagesDependencies): void {
  const { tokens } = deps.services;

  registerPageScope(app, (scope) => {
    scope.get("/", { schema: { hide: true } }, async (_request, reply) => seeOther(reply, "/account/applications"));

    scope.get("/account/applications", { schema: { hide: true } }, async (request, reply) => {
      const session = await currentSession(deps, request);
      if (!session) return showLoginPage(deps, request, reply, { statusCode: 200, next: "applications", carried: [] });
      const apps = await tokens.listAuthorizedApps(session.userId);
      const page = applicationsPage({
        userEmail: session.email,
        apps: apps.map((a) => ({ ...a, revokeCsrfToken: csrfToken(session.csrfSecret, "revoke", a.clientId) })),
        logoutCsrfToken: csrfToken(session.csrfSecret, "logout"),
      });
      return sendPage(reply, 200, page);
    });

    scope.post("/account/applications/revoke", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      const session = await currentSession(deps, request);
      if (!session) {
        return showLoginPage(deps, request, reply, {
          statusCode: 400,
          next: "applications",
          carried: [],
          error: "Your session has ended. Sign in again to continue.",
        });
      }
      const clientId = single(form, "client_id");
      if (!clientId || !csrfTokenMatches(session.csrfSecret, "revoke", clientId, form.get(CSRF_FIELD))) {
        return sendPage(
          reply,
          400,
          errorPage("Revocation refused", "This form has expired. Reload the page and try again."),
        );
      }
      await tokens.revokeForUserAndClient(session.userId, clientId);
      return seeOther(reply, "/account/applications");
    });
  });
}
