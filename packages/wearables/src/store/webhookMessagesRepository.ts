/**
 * SQL of the webhook outbox (`wearables.webhook_messages`), its deliveries (`webhook_deliveries`: one per
 * endpoint and message) and their attempts (`webhook_attempts`). Lists page newest first by key, as Svix's do.
 */
import type { Queryable } from "@platform/kernel";

export interface NewMessage {
  id: string;
  event_type: string;
  event_id: string;
  user_id: string | null;
  payload: unknown;
}

export interface MessageRow {
  key: string;
  id: string;
  event_type: string;
  event_id: string;
  user_id: string | null;
  payload: unknown;
  created_at: Date;
}

export type DeliveryStatus = "pending" | "success" | "failed";

/** A delivery with what sending it needs: the message and the endpoint's address and sealed secrets. */
export interface DeliveryToSend {
  endpoint_id: string;
  message_key: string;
  status: DeliveryStatus;
  attempts: number;
  message_id: string;
  event_type: string;
  payload: unknown;
  url: string;
  disabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

export interface NewAttempt {
  id: string;
  endpoint_id: string;
  message_key: string;
  url: string;
  response: string;
  response_status_code: number;
  response_duration_ms: number;
  /** 0 success, 2 fail (Svix's MessageStatus). */
  status: 0 | 2;
  /** 0 scheduled, 1 manual. */
  trigger_type: 0 | 1;
}

export interface AttemptRow extends NewAttempt {
  key: string;
  created_at: Date;
  message_id: string;
  event_type: string;
  event_id: string;
  payload: unknown;
  message_created_at: Date;
}

export interface PageQuery {
  limit: number;
  /** Continue after this key (older), from a previous page's iterator. */
  beforeKey?: bigint | undefined;
  /** Only rows created before / after these instants. */
  before?: Date | undefined;
  after?: Date | undefined;
}

const MESSAGE_COLUMNS = "m.key::text AS key, m.id, m.event_type, m.event_id, m.user_id, m.payload, m.created_at";

function pageWhere(alias: string, q: PageQuery, values: unknown[]): string {
  const where: string[] = [];
  if (q.beforeKey !== undefined) {
    values.push(q.beforeKey.toString());
    where.push(`${alias}.key < $${values.length}::bigint`);
  }
  if (q.before) {
    values.push(q.before);
    where.push(`${alias}.created_at < $${values.length}`);
  }
  if (q.after) {
    values.push(q.after);
    where.push(`${alias}.created_at > $${values.length}`);
  }
  return where.map((w) => ` AND ${w}`).join("");
}

export function createWebhookMessagesRepository() {
  return {
    /** Writes the messages whose `event_id` is new; answers those written. */
    async insertMessages(q: Queryable, messages: readonly NewMessage[]): Promise<{ key: string; event_id: string }[]> {
      if (messages.length === 0) return [];
      return q.query<{ key: string; event_id: string }>(
        `INSERT INTO wearables.webhook_messages (id, event_type, event_id, user_id, payload)
         SELECT m.id, m.event_type, m.event_id, m.user_id, m.payload
         FROM jsonb_to_recordset($1::jsonb) AS m(id text, event_type text, event_id text, user_id uuid, payload jsonb)
         ON CONFLICT (event_id) DO NOTHING
         RETURNING key::text AS key, event_id`,
        [JSON.stringify(messages)],
      );
    },

    async insertDeliveries(q: Queryable, pairs: readonly { endpoint_id: string; message_key: string }[]) {
      if (pairs.length === 0) return [];
      return q.query<{ endpoint_id: string; message_key: string }>(
        `INSERT INTO wearables.webhook_deliveries (endpoint_id, message_key, status, next_attempt_at)
         SELECT d.endpoint_id, d.message_key, 'pending', now()
         FROM jsonb_to_recordset($1::jsonb) AS d(endpoint_id uuid, message_key bigint)
         ON CONFLICT DO NOTHING
         RETURNING endpoint_id, message_key::text AS message_key`,
        [JSON.stringify(pairs)],
      );
    },

    async deliveryToSend(q: Queryable, endpointId: string, messageKey: string): Promise<DeliveryToSend | undefined> {
      const [row] = await q.query<DeliveryToSend>(
        `SELECT d.endpoint_id, d.message_key::text AS message_key, d.status, d.attempts, m.id AS message_id,
                m.event_type, m.payload, e.url, e.disabled, e.secret_sealed, e.previous_secret_sealed,
                e.previous_secret_expires_at, e.failing_since
         FROM wearables.webhook_deliveries d
         JOIN wearables.webhook_messages m ON m.key = d.message_key
         JOIN wearables.webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.endpoint_id = $1 AND d.message_key = $2::bigint`,
        [endpointId, messageKey],
      );
      return row;
    },

    async updateDelivery(
      q: Queryable,
      endpointId: string,
      messageKey: string,
      set: { status: DeliveryStatus; attempts: number; nextAttemptAt: Date | null },
    ) {
      await q.query(
        `UPDATE wearables.webhook_deliveries SET status = $3, attempts = $4, next_attempt_at = $5, updated_at = now()
         WHERE endpoint_id = $1 AND message_key = $2::bigint`,
        [endpointId, messageKey, set.status, set.attempts, set.nextAttemptAt],
      );
    },

    /**
     * An attempt, the delivery's new state and the endpoint's failing streak (a success ends it, a failure starts
     * it if none runs), in one statement: a delivery attempt's hot path.
     */
    async recordAttempt(
      q: Queryable,
      a: NewAttempt,
      set: { status: DeliveryStatus; attempts: number; nextAttemptAt: Date | null },
    ) {
      await q.query(
        `WITH attempt AS (
           INSERT INTO wearables.webhook_attempts (id, endpoint_id, message_key, url, response, response_status_code,
             response_duration_ms, status, trigger_type)
           VALUES ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9)),
         streak AS (
           UPDATE wearables.webhook_endpoints
           SET failing_since = CASE WHEN $8 = 0 THEN NULL ELSE now() END
           WHERE id = $2 AND (CASE WHEN $8 = 0 THEN failing_since IS NOT NULL ELSE failing_since IS NULL END))
         UPDATE wearables.webhook_deliveries SET status = $10, attempts = $11, next_attempt_at = $12, updated_at = now()
         WHERE endpoint_id = $2 AND message_key = $3::bigint`,
        [
          a.id,
          a.endpoint_id,
          a.message_key,
          a.url,
          a.response,
          a.response_status_code,
          a.response_duration_ms,
          a.status,
          a.trigger_type,
          set.status,
          set.attempts,
          set.nextAttemptAt,
        ],
      );
    },

    /** Messages, newest first. */
    async listMessages(q: Queryable, page: PageQuery): Promise<MessageRow[]> {
      const values: unknown[] = [];
      const where = pageWhere("m", page, values);
      values.push(page.limit + 1);
      return q.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM wearables.webhook_messages m WHERE true${where}
         ORDER BY m.key DESC LIMIT $${values.length}`,
        values,
      );
    },

    async messageIdOfEvent(q: Queryable, eventId: string): Promise<string | undefined> {
      const [row] = await q.query<{ id: string }>("SELECT id FROM wearables.webhook_messages WHERE event_id = $1", [
        eventId,
      ]);
      return row?.id;
    },

    async messageKeyOf(q: Queryable, messageId: string): Promise<bigint | undefined> {
      const [row] = await q.query<{ key: string }>(
        "SELECT key::text AS key FROM wearables.webhook_messages WHERE id = $1",
        [messageId],
      );
      return row ? BigInt(row.key) : undefined;
    },

    /** An endpoint's attempts, newest first, with their messages. */
    async listAttempts(
      q: Queryable,
      endpointId: string,
      page: PageQuery & { status?: 0 | 2 | undefined; eventTypes?: string[] | undefined },
    ): Promise<AttemptRow[]> {
      const values: unknown[] = [endpointId];
      let where = pageWhere("a", page, values);
      if (page.status !== undefined) {
        values.push(page.status);
        where += ` AND a.status = $${values.length}`;
      }
      if (page.eventTypes?.length) {
        values.push(page.eventTypes);
        where += ` AND m.event_type = ANY($${values.length}::text[])`;
      }
      values.push(page.limit + 1);
      return q.query<AttemptRow>(
        `SELECT a.key::text AS key, a.id, a.endpoint_id, a.message_key::text AS message_key, a.url, a.response,
                a.response_status_code, a.response_duration_ms, a.status, a.trigger_type, a.created_at,
                m.id AS message_id, m.event_type, m.event_id, m.payload, m.created_at AS message_created_at
         FROM wearables.webhook_attempts a JOIN wearables.webhook_messages m ON m.key = a.message_key
         WHERE a.endpoint_id = $1${where}
         ORDER BY a.key DESC LIMIT $${values.length}`,
        values,
      );
    },

    async attemptKeyOf(q: Queryable, attemptId: string): Promise<bigint | undefined> {
      const [row] = await q.query<{ key: string }>(
        "SELECT key::text AS key FROM wearables.webhook_attempts WHERE id = $1",
        [attemptId],
      );
      return row ? BigInt(row.key) : undefined;
    },

    /** Deletes up to `limit` messages created before `before` (their deliveries and attempts go with them). */
    async pruneMessages(q: Queryable, before: Date, limit: number): Promise<number> {
      const rows = await q.query(
        `DELETE FROM wearables.webhook_messages WHERE key IN (
           SELECT key FROM wearables.webhook_messages WHERE created_at < $1 ORDER BY key LIMIT $2)
         RETURNING key`,
        [before, limit],
      );
      return rows.length;
    },

    /**
     * Recovery: the endpoint's failed deliveries of messages created in [since, until) become pending again;
     * answers their message keys (the caller queues an attempt for each).
     */
    async reopenFailed(q: Queryable, endpointId: string, since: Date, until: Date): Promise<string[]> {
      const rows = await q.query<{ message_key: string }>(
        `UPDATE wearables.webhook_deliveries d SET status = 'pending', next_attempt_at = now(), updated_at = now()
         FROM wearables.webhook_messages m
         WHERE d.endpoint_id = $1 AND d.status = 'failed' AND m.key = d.message_key
           AND m.created_at >= $2 AND m.created_at < $3
         RETURNING d.message_key::text AS message_key`,
        [endpointId, since, until],
      );
      return rows.map((r) => r.message_key);
    },
  };
}

export type WebhookMessagesRepository = ReturnType<typeof createWebhookMessagesRepository>;
