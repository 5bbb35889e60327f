/**
 * SQL for `brokerage.oauth_clients`: registered applications. The secret is stored as its SHA-256 only;
 * a revoked client keeps its row (`revoked_at`), so its client_id is never reused and its history stays.
 */
import type { Queryable } from "@platform/kernel";

export interface ClientRow {
  client_id: string;
  name: string;
  /** SHA-256 of the client secret. */
  secret_hash: Buffer;
  /** Matched exactly, in the order they were registered. */
  redirect_uris: string[];
  created_at: Date;
  revoked_at: Date | null;
}

/** A client as operators see it: everything but the secret's hash. */
export type ClientSummary = Omit<ClientRow, "secret_hash">;

export interface NewClient {
  clientId: string;
  name: string;
  secretHash: Buffer;
  redirectUris: readonly string[];
}

const SUMMARY_COLUMNS = "client_id, name, redirect_uris, created_at, revoked_at";

export function createClientsRepository(db: Queryable) {
  return {
    async insert(client: NewClient): Promise<ClientSummary> {
      const [row] = await db.query<ClientSummary>(
        `INSERT INTO brokerage.oauth_clients (client_id, name, secret_hash, redirect_uris)
         VALUES ($1, $2, $3, $4::text[]) RETURNING ${SUMMARY_COLUMNS}`,
        [client.clientId, client.name, client.secretHash, client.redirectUris],
      );
      return row as ClientSummary;
    },

    /** The client with this id, revoked ones too (`revoked_at` set). */
    async get(clientId: string): Promise<ClientRow | undefined> {
      const [row] = await db.query<ClientRow>(
        `SELECT ${SUMMARY_COLUMNS}, secret_hash FROM brokerage.oauth_clients WHERE client_id = $1`,
        [clientId],
      );
      return row;
    },

    /** Every client, oldest first. */
    list: (): Promise<ClientSummary[]> =>
      db.query<ClientSummary>(`SELECT ${SUMMARY_COLUMNS} FROM brokerage.oauth_clients ORDER BY created_at, client_id`),

    /**
     * Revokes the client and, in the same statement, every access token issued to it (an application that
     * is shut out must not keep calling the API with tokens it already holds). False when no active client
     * has this id.
     */
    async revoke(clientId: string): Promise<boolean> {
      const rows = await db.query(
        `WITH revoked AS (
           UPDATE brokerage.oauth_clients SET revoked_at = now()
           WHERE client_id = $1 AND revoked_at IS NULL RETURNING client_id
         ), tokens AS (
           UPDATE brokerage.access_tokens t SET revoked_at = now()
           FROM revoked WHERE t.client_id = revoked.client_id AND t.revoked_at IS NULL
         )
         SELECT client_id FROM revoked`,
        [clientId],
      );
      return rows.length === 1;
    },
  };
}

export type ClientsRepository = ReturnType<typeof createClientsRepository>;
