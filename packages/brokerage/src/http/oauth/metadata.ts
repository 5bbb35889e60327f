/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414), the same document on the authorization host and
 * both trading hosts. There is one authorization server, so one issuer: the authorization host's public
 * origin, the `iss` every redirect to a client carries (RFC 9207). A trading host naming itself as issuer
 * would announce an authorization server whose responses never carry that `iss`, and a client checking
 * RFC 9207 would refuse every callback. So the copies name the authorization host too: RFC 8414 §3.3 makes a
 * client that took a trading host's origin for the issuer refuse them (as openid-client's `discovery()`
 * does), and clients that fetch the metadata URL itself (openid-client accepts a `/.well-known/` URL) or
 * that know the issuer get the same endpoints from any host. No `/.well-known/openid-configuration`: this is
 * not an OpenID provider (no ID tokens), so OpenID discovery finds nothing (openid-client: `algorithm:
 * "oauth2"`).
 */
import type { HttpServer } from "@platform/kernel";
import { type Static, Type } from "typebox";
import { SCOPES } from "../../domain/scopes.ts";

/** The public URLs of the endpoints, read per request (an ephemeral port is known only once listening). */
export interface AuthorizationServerUrls {
  issuer(): string;
  authorizationEndpoint(): string;
  tokenEndpoint(): string;
  revocationEndpoint(): string;
}

const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"];

const strings = (description: string) => Type.Array(Type.String(), { description });

const metadataFields = {
  issuer: Type.String({ format: "uri" }),
  authorization_endpoint: Type.String({ format: "uri" }),
  token_endpoint: Type.String({ format: "uri" }),
  revocation_endpoint: Type.String({ format: "uri" }),
  response_types_supported: strings("Only the authorization code flow."),
  response_modes_supported: strings("The code and state come back in the redirect URI's query."),
  grant_types_supported: strings("Only `authorization_code`: tokens last until revoked, no refresh tokens."),
  token_endpoint_auth_methods_supported: strings("HTTP Basic or client_id and client_secret in the body."),
  revocation_endpoint_auth_methods_supported: strings("As at the token endpoint."),
  scopes_supported: strings("No scope = read-only access."),
  code_challenge_methods_supported: strings("PKCE with S256 only."),
  authorization_response_iss_parameter_supported: Type.Boolean({
    description: "RFC 9207: every redirect to the client carries `iss` (mix-up defence, RFC 9700 §4.4).",
  }),
};

/** The document's type; the exported schema adds the example (built by the function below). */
const MetadataDocument = Type.Object(metadataFields);

export const AuthorizationServerMetadata = Type.Object(metadataFields, {
  examples: [
    // The document the default hosts serve, made by the function that serves it.
    authorizationServerMetadata({
      issuer: () => "http://127.0.0.1:8200",
      authorizationEndpoint: () => "http://127.0.0.1:8200/oauth/authorize",
      tokenEndpoint: () => "http://127.0.0.1:8201/oauth/token",
      revocationEndpoint: () => "http://127.0.0.1:8201/oauth/revoke",
    }),
  ],
});

/** The metadata document for these URLs. */
export function authorizationServerMetadata(urls: AuthorizationServerUrls): Static<typeof MetadataDocument> {
  return {
    issuer: urls.issuer(),
    authorization_endpoint: urls.authorizationEndpoint(),
    token_endpoint: urls.tokenEndpoint(),
    revocation_endpoint: urls.revocationEndpoint(),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code"],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    scopes_supported: [...SCOPES],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
  };
}

export function registerMetadataRoute(app: HttpServer, urls: AuthorizationServerUrls) {
  app.get(
    "/.well-known/oauth-authorization-server",
    {
      schema: {
        operationId: "getAuthorizationServerMetadata",
        tags: ["OAuth"],
        summary: "Authorization server metadata",
        description:
          "RFC 8414. The same document on every host of the brokerage; the issuer is the authorization host (discover from there).",
        security: [],
        response: { 200: AuthorizationServerMetadata },
      },
    },
    async () => authorizationServerMetadata(urls),
  );
}
