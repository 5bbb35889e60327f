/**
 * `POST /oauth/token` (live host, as Alpaca's): the authorization code grant (RFC 6749 §4.1.3, RFC 7636).
 * Checks, in order: the body (form only, no repeated or oversized parameter) → the client's authentication
 * → `grant_type` → `code`, `redirect_uri`, `code_verifier` present and well-formed → the exchange (tokens
 * service). Success is exactly Alpaca's `{access_token, token_type: "bearer", scope}`; errors RFC 6749 §5.2.
 */
import type { FailedCredentials, HttpServer } from "@platform/kernel";
import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import { OAuthError } from "../../domain/oauthErrors.ts";
import { CODE_VERIFIER } from "../../domain/pkce.ts";
import type { TokensService } from "../../services/tokens.ts";
import { authenticateClient, type ClientAuthenticator, underFailureLimit } from "./clientAuthentication.ts";
import { FORM_BODY_LIMIT, FormParameter, formOf, OAuthErrorBody, registerFormEndpoint } from "./formEndpoint.ts";

const TokenRequest = Type.Object({
  grant_type: FormParameter("Must be `authorization_code`.", "authorization_code"),
  code: FormParameter("The code of the authorization callback.", "Vhg4OkX6FcAJ2mtH3ZdlQfZ2tD-VPgpsZ1ccMXm7lQs"),
  redirect_uri: FormParameter(
    "The redirect URI of the authorization request, identical.",
    "http://127.0.0.1:8765/callback",
  ),
  client_id: FormParameter("With client_secret: `client_secret_post` authentication (or HTTP Basic instead)."),
  client_secret: FormParameter("With client_id: `client_secret_post` authentication."),
  code_verifier: FormParameter("PKCE verifier (RFC 7636): required when the authorization request had a challenge."),
});

export const AccessTokenGrantBody = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal("bearer"),
    scope: Type.String({ description: "Space-delimited granted scopes; empty = read-only." }),
  },
  {
    examples: [
      { access_token: "mXw0a8CTIsQ0d4oGvqJf3JfG2t0TQ1xT0nq0m0AQb3k", token_type: "bearer", scope: "trading data" },
    ],
  },
);

const invalidRequest = (description: string) => new OAuthError("invalid_request", description);

export function registerTokenRoute(
  app: HttpServer,
  {
    tokens,
    clients,
    failedCredentials,
  }: {
    tokens: Pick<TokensService, "exchangeCode">;
    clients: ClientAuthenticator;
    /** Failed client authentications and grants per client address (kernel's limit); none counted without. */
    failedCredentials?: FailedCredentials;
  },
) {
  registerFormEndpoint(app, (scope) => {
    scope.post(
      "/oauth/token",
      {
        bodyLimit: FORM_BODY_LIMIT,
        schema: {
          operationId: "createAccessToken",
          tags: ["OAuth"],
          summary: "Exchange an authorization code for an access token",
          description:
            "RFC 6749 §4.1.3 with PKCE (RFC 7636). The client authenticates with HTTP Basic " +
            "(`client_secret_basic`) or with `client_id` and `client_secret` in the body (`client_secret_post`), " +
            "not both. A code is single use: a second exchange fails and revokes the token of the first. " +
            "Tokens do not expire; they last until revoked.",
          security: [],
          consumes: ["application/x-www-form-urlencoded"],
          body: TokenRequest,
          response: {
            200: AccessTokenGrantBody,
            400: OAuthErrorBody,
            401: OAuthErrorBody,
            429: OAuthErrorBody,
            500: OAuthErrorBody,
          },
        },
      },
      async (request, reply) =>
        underFailureLimit(failedCredentials, request, reply as FastifyReply, async () => {
          const form = formOf(request);
          const clientId = await authenticateClient(clients, request.headers.authorization, form);
          const { grant_type: grantType, code, redirect_uri: redirectUri, code_verifier: codeVerifier } = form;
          if (grantType === undefined) throw invalidRequest("grant_type is required");
          if (grantType !== "authorization_code") {
            throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code");
          }
          if (code === undefined) throw invalidRequest("code is required");
          if (redirectUri === undefined) throw invalidRequest("redirect_uri is required");
          if (codeVerifier !== undefined && !CODE_VERIFIER.test(codeVerifier)) {
            throw invalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)");
          }
          return tokens.exchangeCode({ code, clientId, redirectUri, codeVerifier });
        }),
    );
  });
}
