/**
 * How the authorization host answers the client through the browser (RFC 6749 §4.1.2, RFC 9207): a 303 to
 * the registered redirect URI with `code` or `error`/`error_description`, `state` exactly as sent, and `iss`
 * (the issuer, against mix-up attacks, RFC 9700 §4.4); or, when the redirect URI is not proven, an error
 * page and no redirect at all.
 */
import type { FastifyReply } from "fastify";
import {
  AuthorizationRedirectError,
  AuthorizationTargetError,
  authorizationResponseUri,
} from "../../domain/authorizationRequest.ts";
import type { OAuthError } from "../../domain/oauthErrors.ts";
import type { AuthPagesDependencies } from "./browserSession.ts";
import { seeOther, sendPage } from "./pageScope.ts";
import { errorPage } from "./pages.ts";
import { formTargetOf } from "./securityHeaders.ts";

/** The `form-action` sources a page whose form may end at `redirectUri` needs. */
export const formTargetsOf = (redirectUri: string): string[] => {
  const target = formTargetOf(redirectUri);
  return target ? [target] : [];
};

/** Redirects to the client with the authorization response (`code`, or an error). */
export function redirectToClient(
  deps: AuthPagesDependencies,
  reply: FastifyReply,
  redirectUri: string,
  response: { code: string } | { error: OAuthError },
  state: string | undefined,
) {
  const fields = "code" in response ? { code: response.code } : response.error.toJSON();
  return seeOther(reply, authorizationResponseUri(redirectUri, { ...fields, state, iss: deps.urls.issuer() }));
}

const TARGET_MESSAGES = {
  client_id: "The application that sent you here is not registered with us, or its registration was revoked.",
  redirect_uri: "The application that sent you here asked to return to an address it has not registered.",
} as const;

/**
 * Answers an error of `authorization.check`: an unproven client or redirect URI as a 400 page, any other
 * error as a redirect to the client. Anything else is rethrown.
 */
export function answerAuthorizationError(deps: AuthPagesDependencies, reply: FastifyReply, error: unknown) {
  if (error instanceof AuthorizationTargetError) {
    return sendPage(
      reply,
      400,
      errorPage("This application cannot be authorized", `${TARGET_MESSAGES[error.parameter]} (${error.message}.)`),
    );
  }
  if (error instanceof AuthorizationRedirectError) {
    return redirectToClient(deps, reply, error.redirectUri, { error: error.oauthError }, error.state);
  }
  throw error;
}
