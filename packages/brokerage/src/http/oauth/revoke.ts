/**
 * `POST /oauth/revoke` (RFC 7009): an authenticated client revokes one of its access tokens. The answer is
 * 200 with an empty body whether the token was the client's and active, already revoked, unknown, or
 * another client's (which is left alone): a client learns nothing about tokens it does not hold.
 * `token_type_hint` is accepted and ignored: access tokens are the only kind there is, and RFC 7009 §2.1
 * has the server search every kind anyway.
 */
import type { FailedCredentials, HttpServer } from "@platform/kernel";
import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import { OAuthError } from "../../domain/oauthErrors.ts";
import type { TokensService } from "../../services/tokens.ts";
import { authenticateClient, type ClientAuthenticator, underFailureLimit } from "./clientAuthentication.ts";
import { FORM_BODY_LIMIT, FormParameter, formOf, OAuthErrorBody, registerFormEndpoint } from "./formEndpoint.ts";

const RevocationRequest = Type.Object({
  token: FormParameter("The access token to revoke."),
  token_type_hint: FormParameter("Ignored: `access_token` is the only kind.", "access_token"),
  client_id: FormParameter("With client_secret: `client_secret_post` authentication (or HTTP Basic instead)."),
  client_secret: FormParameter("With client_id: `client_secret_post` authentication."),
});

export function registerRevocationRoute(
  app: HttpServer,
  {
    tokens,
    clients,
    failedCredentials,
  }: {
    tokens: Pick<TokensService, "revoke">;
    clients: ClientAuthenticator;
    /** Failed client authentications per client address (kernel's limit); none counted without. */
    failedCredentials?: FailedCredentials;
  },
) {
  registerFormEndpoint(app, (scope) => {
    scope.post(
      "/oauth/revoke",
      {
        bodyLimit: FORM_BODY_LIMIT,
        schema: {
          operationId: "revokeAccessToken",
          tags: ["OAuth"],
          summary: "Revoke an access token",
          description:
            "RFC 7009. The client authenticates as at the token endpoint. 200 also when the token is unknown, " +
            "already revoked, or another client's (not revoked then).",
          security: [],
          consumes: ["application/x-www-form-urlencoded"],
          body: RevocationRequest,
          response: {
            200: Type.Null({ description: "The token is not (or no longer) valid for this client." }),
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
          if (form.token === undefined) throw new OAuthError("invalid_request", "token is required");
          await tokens.revoke(form.token, clientId);
          // An empty body (the typed reply would serialise `null`): RFC 7009 §2.2 conveys it all in the status.
          return (reply as FastifyReply).code(200).send();
        }),
    );
  });
}
