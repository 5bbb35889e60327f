/**
 * Credentials of a fuzz case: the operation's documented security schemes filled with real credentials, or
 * none, a garbled one, another service's key, or a malformed `Authorization` header.
 */
import fc from "fast-check";
import { headerString } from "./hostileStrings.ts";
import type { Operation, SecurityScheme } from "./openapiOperations.ts";

/** Real secrets by security scheme name (`bearerAuth`, `apiKeyId`, `apiSecretKey`, `ServiceApiKey`…). */
export type SchemeSecrets = Record<string, string>;

export type CredentialCase =
  | { kind: "valid"; alternative: number }
  | { kind: "none" }
  | { kind: "garbled"; alternative: number; position: number; replacement: string }
  | { kind: "foreign"; alternative: number; secret: string }
  | { kind: "malformed"; header: string; value: string };

/** The alternatives of `op` whose every scheme has a secret. */
function usable(op: Operation, secrets: SchemeSecrets): number[] {
  return op.security.flatMap((schemes, i) => (schemes.every((s) => secrets[s] !== undefined) ? [i] : []));
}

/** Mostly real credentials, so cases reach the route; the rest probe authentication. */
export function credentialCase(op: Operation, secrets: SchemeSecrets, foreign: string[]): fc.Arbitrary<CredentialCase> {
  const alternatives = usable(op, secrets);
  if (op.security.length === 0 || alternatives.length === 0) return fc.constant({ kind: "none" });
  const alternative = fc.constantFrom(...alternatives);
  return fc.oneof(
    { weight: 12, arbitrary: alternative.map((a) => ({ kind: "valid" as const, alternative: a })) },
    { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
    {
      weight: 1,
      arbitrary: fc
        .record({ alternative, position: fc.nat(), replacement: fc.constantFrom("", "x", "0", "_", " ", "é") })
        .map((c) => ({ kind: "garbled" as const, ...c })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ alternative, secret: fc.constantFrom(...foreign, "") })
        .map((c) => ({ kind: "foreign" as const, ...c })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          header: fc.constantFrom("authorization", "x-service-api-key", "apca-api-key-id", "apca-api-secret-key"),
          value: headerString(),
        })
        .map((c) => ({ kind: "malformed" as const, ...c })),
    },
  );
}

/** Where a scheme's secret travels: a header (name, value) or a query parameter. */
function placed(
  scheme: SecurityScheme | undefined,
  secret: string,
): { header?: [string, string]; query?: [string, string] } {
  if (!scheme) return {};
  if (scheme.type === "http") {
    return { header: ["authorization", `${scheme.scheme?.toLowerCase() === "basic" ? "Basic" : "Bearer"} ${secret}`] };
  }
  if (scheme.type === "apiKey" && scheme.name) {
    return scheme.in === "query" ? { query: [scheme.name, secret] } : { header: [scheme.name.toLowerCase(), secret] };
  }
  return {};
}

/** The headers and query parameters `credential` puts on a request of `op`. */
export function applyCredential(
  op: Operation,
  credential: CredentialCase,
  secrets: SchemeSecrets,
): { headers: Record<string, string>; query: [string, string][] } {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  if (credential.kind === "none") return { headers, query };
  if (credential.kind === "malformed") return { headers: { [credential.header]: credential.value }, query };
  const schemes = op.security[credential.alternative] ?? [];
  schemes.forEach((name, i) => {
    let secret = secrets[name] ?? "";
    if (credential.kind === "garbled" && i === 0) {
      const at = credential.position % (secret.length + 1);
      secret = secret.slice(0, at) + credential.replacement + secret.slice(at + 1);
    }
    if (credential.kind === "foreign" && i === 0) secret = credential.secret;
    const where = placed(op.securitySchemes[name], secret);
    if (where.header) headers[where.header[0]] = where.header[1];
    if (where.query) query.push(where.query);
  });
  return { headers, query };
}
