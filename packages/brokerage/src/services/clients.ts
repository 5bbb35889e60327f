/**
 * OAuth clients (registered applications): registration with exactly matched redirect URIs, a secret shown
 * once and stored as its SHA-256, revocation, and client authentication for the token and revocation
 * endpoints.
 */
import { randomBytes } from "node:crypto";
import { BrokerageInputError, ClientNotFoundError } from "../domain/brokerageErrors.ts";
import { checkRedirectUriForRegistration, InvalidRedirectUriError } from "../domain/redirectUris.ts";
import { hashesEqual, hashSecret, randomSecret } from "../domain/secrets.ts";
import type { ClientRow, ClientSummary, ClientsRepository } from "../store/clientsRepository.ts";

/** Longest application name (it is shown on the consent page). */
export const MAX_CLIENT_NAME_LENGTH = 100;
/** Most redirect URIs one client registers. */
export const MAX_REDIRECT_URIS = 10;
/** What a client_id looks like (32 hex characters); anything else is unknown without a lookup. */
export const CLIENT_ID = /^[0-9a-f]{32}$/;
/** Longest client secret worth hashing (ours are 43 characters). */
const MAX_SECRET_LENGTH = 512;

/** A registered client as shown once, right after registration: the only time its secret is visible. */
export interface CreatedClient {
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uris: string[];
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > MAX_CLIENT_NAME_LENGTH || /\p{Cc}/u.test(trimmed)) {
    throw new BrokerageInputError(
      "name",
      `an application name has 1 to ${MAX_CLIENT_NAME_LENGTH} characters, none of them control characters`,
    );
  }
  return trimmed;
}

function checkRedirectUris(uris: readonly string[]): string[] {
  const unique = [...new Set(uris)];
  if (unique.length < 1 || unique.length > MAX_REDIRECT_URIS) {
    throw new BrokerageInputError("redirectUris", `an application has 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  return unique.map((uri) => {
    try {
      return checkRedirectUriForRegistration(uri);
    } catch (error) {
      if (error instanceof InvalidRedirectUriError) {
        throw new BrokerageInputError("redirectUris", error.message, { cause: error });
      }
      throw error;
    }
  });
}

export function createClientsService({ clients }: { clients: ClientsRepository }) {
  // Compared against when the client is unknown or revoked, so every failure costs the same.
  const decoyHash = hashSecret(randomSecret());

  return {
    /**
     * Registers an application. The secret is in the answer only; the store keeps its hash.
     * @throws {BrokerageInputError} for an empty or long name, or a redirect URI that cannot be registered.
     */
    async create({ name, redirectUris }: { name: string; redirectUris: readonly string[] }): Promise<CreatedClient> {
      const checked = { name: checkName(name), redirectUris: checkRedirectUris(redirectUris) };
      const clientSecret = randomSecret();
      const row = await clients.insert({
        clientId: randomBytes(16).toString("hex"),
        name: checked.name,
        secretHash: hashSecret(clientSecret),
        redirectUris: checked.redirectUris,
      });
      return {
        client_id: row.client_id,
        client_secret: clientSecret,
        name: row.name,
        redirect_uris: row.redirect_uris,
      };
    },

    /** Every client, revoked ones too, without their secrets' hashes. */
    list: (): Promise<ClientSummary[]> => clients.list(),

    /** The client, revoked or not (`revoked_at`); undefined when unknown. */
    get: (clientId: string): Promise<ClientRow | undefined> =>
      CLIENT_ID.test(clientId) ? clients.get(clientId) : Promise.resolve(undefined),

    /**
     * Revokes the client and every access token issued to it. True when it was revoked now, false when it
     * had been revoked already.
     * @throws {ClientNotFoundError} when no client has this id.
     */
    async revoke(clientId: string): Promise<boolean> {
      if (CLIENT_ID.test(clientId) && (await clients.revoke(clientId))) return true;
      if (!CLIENT_ID.test(clientId) || !(await clients.get(clientId))) throw new ClientNotFoundError(clientId);
      return false;
    },

    /**
     * The active client whose id and secret these are, or undefined (unknown, revoked or wrong secret). The
     * secret's hash is always compared in constant time.
     */
    async authenticate(clientId: string, clientSecret: string): Promise<ClientRow | undefined> {
      const client = CLIENT_ID.test(clientId) ? await clients.get(clientId) : undefined;
      const presented = hashSecret(clientSecret.slice(0, MAX_SECRET_LENGTH));
      const matches = hashesEqual(presented, client?.secret_hash ?? decoyHash);
      return client && !client.revoked_at && matches && clientSecret.length <= MAX_SECRET_LENGTH ? client : undefined;
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
