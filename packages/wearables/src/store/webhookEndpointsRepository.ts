/**
 * SQL of webhook endpoints (`wearables.webhook_endpoints`). Secrets arrive and leave sealed: the service seals
 * and opens them (kernel secret box), this file never sees one in clear.
 */
import type { Queryable } from "@platform/kernel";

export interface WebhookEndpointRow {
  id: string;
  url: string;
  description: string | null;
  filter_types: string[] | null;
  user_id: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  disabled: boolean;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a delivery's outbox matching needs of every enabled endpoint. */
export interface EndpointFilter {
  id: string;
  filter_types: string[] | null;
  user_id: string | null;
}

export interface EndpointFields {
  url: string;
  description: string | null;
  filter_types: string[] | null;
  user_id: string | null;
}

/** What a PATCH may change: the fields, and `disabled` (false re-enables an endpoint the failures disabled). */
export type EndpointChanges = Partial<EndpointFields> & { disabled?: boolean };

const COLUMNS = `id, url, description, filter_types, user_id, secret_sealed, previous_secret_sealed,
  previous_secret_expires_at, disabled, disabled_at, failing_since, created_at, updated_at`;

export function createWebhookEndpointsRepository() {
  return {
    async insert(q: Queryable, id: string, fields: EndpointFields, secretSealed: string): Promise<WebhookEndpointRow> {
      const [row] = await q.query<WebhookEndpointRow>(
        `INSERT INTO wearables.webhook_endpoints (id, url, description, filter_types, user_id, secret_sealed)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [id, fields.url, fields.description, fields.filter_types, fields.user_id, secretSealed],
      );
      return row as WebhookEndpointRow;
    },

    async list(q: Queryable): Promise<WebhookEndpointRow[]> {
      return q.query<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM wearables.webhook_endpoints ORDER BY created_at, id`);
    },

    async get(q: Queryable, id: string): Promise<WebhookEndpointRow | undefined> {
      const [row] = await q.query<WebhookEndpointRow>(
        `SELECT ${COLUMNS} FROM wearables.webhook_endpoints WHERE id = $1`,
        [id],
      );
      return row;
    },

    /** Enabled endpoints, for matching new messages (a small table: read whole). */
    async enabledFilters(q: Queryable): Promise<EndpointFilter[]> {
      return q.query<EndpointFilter>(
        "SELECT id, filter_types, user_id FROM wearables.webhook_endpoints WHERE NOT disabled",
      );
    },

    /** Sets the given fields (an explicit null clears one); enabling clears the failure record. */
    async update(q: Queryable, id: string, changes: EndpointChanges): Promise<WebhookEndpointRow | undefined> {
      const { disabled, ...fields } = changes;
      const sets: string[] = [];
      const values: unknown[] = [id];
      for (const [column, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      }
      if (disabled === false) sets.push("disabled = false, disabled_at = NULL, failing_since = NULL");
      if (disabled === true) sets.push("disabled = true, disabled_at = coalesce(disabled_at, now())");
      const [row] = await q.query<WebhookEndpointRow>(
        `UPDATE wearables.webhook_endpoints SET ${[...sets, "updated_at = now()"].join(", ")}
         WHERE id = $1 RETURNING ${COLUMNS}`,
        values,
      );
      return row;
    },

    async userExists(q: Queryable, userId: string): Promise<boolean> {
      const rows = await q.query("SELECT 1 FROM wearables.users WHERE id = $1", [userId]);
      return rows.length > 0;
    },

    async delete(q: Queryable, id: string): Promise<boolean> {
      const rows = await q.query("DELETE FROM wearables.webhook_endpoints WHERE id = $1 RETURNING id", [id]);
      return rows.length > 0;
    },

    /** A new secret; the current one keeps signing until `previousExpiresAt`. */
    async rotateSecret(q: Queryable, id: string, secretSealed: string, previousExpiresAt: Date) {
      const rows = await q.query(
        `UPDATE wearables.webhook_endpoints
         SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $3, secret_sealed = $2,
             updated_at = now()
         WHERE id = $1 RETURNING id`,
        [id, secretSealed, previousExpiresAt],
      );
      return rows.length > 0;
    },

    /** Disables the endpoint if it is failing since before `cutoff`; answers whether this call disabled it. */
    async disableIfFailingSince(q: Queryable, id: string, cutoff: Date): Promise<WebhookEndpointRow | undefined> {
      const [row] = await q.query<WebhookEndpointRow>(
        `UPDATE wearables.webhook_endpoints SET disabled = true, disabled_at = now(), updated_at = now()
         WHERE id = $1 AND NOT disabled AND failing_since <= $2 RETURNING ${COLUMNS}`,
        [id, cutoff],
      );
      return row;
    },
  };
}

export type WebhookEndpointsRepository = ReturnType<typeof createWebhookEndpointsRepository>;
