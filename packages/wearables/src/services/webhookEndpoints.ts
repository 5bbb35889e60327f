/**
 * Webhook endpoints and what they received: registration (a `whsec_` secret generated and sealed), changes,
 * secret reading and rotation (the old secret signs too for 24 hours, as Svix), a test message, the message and
 * attempt lists (Svix's shapes, newest first, by iterator), and recovery: every message an endpoint failed to
 * receive in a window of at most 14 days is sent again.
 */
import { randomUUID } from "node:crypto";
import {
  type AddressPolicy,
  type Database,
  enqueueJobs,
  generateWebhookSecret,
  outboundUrlRefusal,
  type SecretBox,
} from "@platform/kernel";
import { RETIRED_SERIES_TYPE_CODES } from "../domain/seriesTypes.ts";
import type {
  EndpointChanges,
  EndpointFields,
  WebhookEndpointRow,
  WebhookEndpointsRepository,
} from "../store/webhookEndpointsRepository.ts";
import type { AttemptRow, MessageRow, WebhookMessagesRepository } from "../store/webhookMessagesRepository.ts";
import { endpointSecretAssociatedData } from "../webhooks/deliveryJob.ts";
import { EVENT_TYPE_NAMES } from "../webhooks/eventTypes.ts";
import { exampleEvent } from "../webhooks/testEvents.ts";
import {
  DELIVERY_JOB_ATTEMPTS,
  type DeliveryJobPayload,
  WEBHOOK_DELIVERY_QUEUE,
  type WebhookOutbox,
} from "../webhooks/webhookOutbox.ts";

/** How long a rotated-out secret still signs (Svix's 24 h). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;
/** Svix's recovery window bound: 14 days and 5 minutes. */
export const MAX_RECOVERY_WINDOW_MS = 14 * 86_400_000 + 5 * 60_000;
/** A secret given by the caller, as Svix accepts them. */
const SECRET_FORMAT = /^(whsec_)?[A-Za-z0-9+/=]{32,100}$/;

/** A request the service refuses, with the HTTP status to answer. */
export class WebhookRequestError extends Error {
  override name = "WebhookRequestError" as const;
  constructor(
    readonly statusCode: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

export interface EndpointRead {
  id: string;
  url: string;
  description: string | null;
  filter_types: string[] | null;
  user_id: string | null;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export const toEndpointRead = (e: WebhookEndpointRow): EndpointRead => ({
  id: e.id,
  url: e.url,
  description: e.description,
  filter_types: e.filter_types,
  user_id: e.user_id,
  disabled: e.disabled,
  created_at: e.created_at.toISOString(),
  updated_at: e.updated_at.toISOString(),
});

export interface MessageRead {
  id: string;
  eventType: string;
  eventId: string | null;
  timestamp: string;
  channels: string[] | null;
  tags: string[] | null;
  payload: Record<string, unknown> | null;
}

const toMessageRead = (
  m: Pick<MessageRow, "id" | "event_type" | "event_id" | "user_id" | "payload" | "created_at">,
) => ({
  id: m.id,
  eventType: m.event_type,
  eventId: m.event_id,
  timestamp: m.created_at.toISOString(),
  // The anchor's per-user Svix channel.
  channels: m.user_id ? [`user.${m.user_id}`] : null,
  tags: null,
  payload: m.payload as Record<string, unknown> | null,
});

const toAttemptRead = (a: AttemptRow) => ({
  id: a.id,
  endpointId: a.endpoint_id,
  msgId: a.message_id,
  url: a.url,
  response: a.response,
  responseStatusCode: a.response_status_code,
  responseDurationMs: a.response_duration_ms,
  status: a.status,
  statusText: a.status === 0 ? "success" : "fail",
  triggerType: a.trigger_type,
  timestamp: a.created_at.toISOString(),
  msg: toMessageRead({ ...a, id: a.message_id, created_at: a.message_created_at, user_id: null }),
});

export interface Page<T> {
  data: T[];
  done: boolean;
  iterator: string | null;
  prevIterator: string | null;
}

export interface ListQuery {
  limit: number;
  iterator?: string | undefined;
  before?: Date | undefined;
  after?: Date | undefined;
}

export function createWebhookEndpointsService(p: {
  db: Database;
  endpoints: WebhookEndpointsRepository;
  messages: WebhookMessagesRepository;
  outbox: WebhookOutbox;
  secrets: SecretBox;
  policy: AddressPolicy;
  now?: () => number;
}) {
  const now = p.now ?? Date.now;

  /** The 0.9 names of the types given (`series.energy.created` is `series.active_energy.created`); 400 on unknown. */
  function checkTypes(types: string[] | null | undefined): string[] | null | undefined {
    if (!types) return types;
    return [
      ...new Set(
        types.map((t) => {
          const m = /^series\.(.+)\.created$/.exec(t);
          const name =
            m && RETIRED_SERIES_TYPE_CODES[m[1] as string]
              ? `series.${RETIRED_SERIES_TYPE_CODES[m[1] as string]}.created`
              : t;
          if (!EVENT_TYPE_NAMES.has(name))
            throw new WebhookRequestError(400, `Unknown event type '${t}' (see GET /webhooks/event-types)`);
          return name;
        }),
      ),
    ];
  }

  function checkUrl(raw: string | undefined): void {
    const why = raw === undefined ? undefined : outboundUrlRefusal(raw, p.policy);
    if (why) throw new WebhookRequestError(400, `url: ${why} (WEARABLES_WEBHOOK_ALLOWED_NETWORKS allows networks)`);
  }

  async function checkUser(userId: string | null | undefined) {
    if (userId && !(await p.endpoints.userExists(p.db, userId)))
      throw new WebhookRequestError(404, `User with ID: ${userId} not found.`);
  }

  async function mustGet(id: string): Promise<WebhookEndpointRow> {
    const e = await p.endpoints.get(p.db, id);
    if (!e) throw new WebhookRequestError(404, `Webhook endpoint ${id} not found`);
    return e;
  }

  const seal = (endpointId: string, secret: string) => p.secrets.seal(secret, endpointSecretAssociatedData(endpointId));

  function pageOf<R extends { id: string }, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
    const done = rows.length <= limit;
    const kept = rows.slice(0, limit);
    return {
      data: kept.map(map),
      done,
      iterator: done ? null : (kept[kept.length - 1]?.id ?? null),
      prevIterator: null,
    };
  }

  return {
    async create(fields: EndpointFields): Promise<EndpointRead> {
      checkUrl(fields.url);
      const types = checkTypes(fields.filter_types);
      await checkUser(fields.user_id);
      // The id is chosen here: the secret is sealed bound to it.
      const id = randomUUID();
      const row = await p.endpoints.insert(
        p.db,
        id,
        { ...fields, filter_types: types ?? null },
        seal(id, generateWebhookSecret()),
      );
      return toEndpointRead(row);
    },

    list: async (): Promise<EndpointRead[]> => (await p.endpoints.list(p.db)).map(toEndpointRead),

    get: async (id: string): Promise<EndpointRead> => toEndpointRead(await mustGet(id)),

    async update(id: string, changes: EndpointChanges): Promise<EndpointRead> {
      checkUrl(changes.url);
      const types = checkTypes(changes.filter_types);
      await checkUser(changes.user_id);
      const row = await p.endpoints.update(p.db, id, {
        ...changes,
        ...(types !== undefined ? { filter_types: types?.length ? types : null } : {}),
      });
      if (!row) throw new WebhookRequestError(404, `Webhook endpoint ${id} not found`);
      return toEndpointRead(row);
    },

    async delete(id: string): Promise<void> {
      if (!(await p.endpoints.delete(p.db, id))) throw new WebhookRequestError(404, `Webhook endpoint ${id} not found`);
    },

    async secret(id: string): Promise<{ key: string }> {
      const e = await mustGet(id);
      return { key: p.secrets.open(e.secret_sealed, endpointSecretAssociatedData(id)) };
    },

    /** A new secret (generated, or the caller's); the current one keeps signing for 24 hours. */
    async rotateSecret(id: string, key?: string | null): Promise<void> {
      if (key && !SECRET_FORMAT.test(key))
        throw new WebhookRequestError(400, "key: must be whsec_ and 32 to 100 base64 characters");
      const secret = key ? (key.startsWith("whsec_") ? key : `whsec_${key}`) : generateWebhookSecret();
      const done = await p.endpoints.rotateSecret(p.db, id, seal(id, secret), new Date(now() + PREVIOUS_SECRET_TTL_MS));
      if (!done) throw new WebhookRequestError(404, `Webhook endpoint ${id} not found`);
    },

    /**
     * A test message of `eventType` to this endpoint only (as the anchor: when the endpoint filters types and
     * this one is not among them, its first filtered type instead).
     */
    async sendTest(id: string, eventType: string): Promise<{ success: true; message_id: string; event_type: string }> {
      const e = await mustGet(id);
      if (e.disabled)
        throw new WebhookRequestError(409, `Webhook endpoint ${id} is disabled: PATCH it with disabled=false`);
      const [requested] = checkTypes([eventType]) as string[];
      const type =
        e.filter_types?.length && !e.filter_types.includes(requested as string)
          ? (e.filter_types[0] as string)
          : (requested as string);
      const example = exampleEvent(type);
      const eventId = `test.${id}.${type}.${now()}`;
      const messageId = await p.db.transaction(async (tx) => {
        await p.outbox.emit(tx, [{ ...example, eventId, onlyEndpointId: id }]);
        return p.messages.messageIdOfEvent(tx, eventId);
      });
      if (!messageId) throw new Error("the test message was not written");
      return { success: true, message_id: messageId, event_type: type };
    },

    async messages(q: ListQuery): Promise<Page<MessageRead>> {
      const beforeKey = q.iterator ? await p.messages.messageKeyOf(p.db, q.iterator) : undefined;
      if (q.iterator && beforeKey === undefined)
        throw new WebhookRequestError(400, `iterator: unknown '${q.iterator}'`);
      const rows = await p.messages.listMessages(p.db, { ...q, beforeKey });
      return pageOf(rows, q.limit, toMessageRead);
    },

    async attempts(
      endpointId: string,
      q: ListQuery & { status?: 0 | 2 | undefined; eventTypes?: string[] | undefined },
    ) {
      await mustGet(endpointId);
      const beforeKey = q.iterator ? await p.messages.attemptKeyOf(p.db, q.iterator) : undefined;
      if (q.iterator && beforeKey === undefined)
        throw new WebhookRequestError(400, `iterator: unknown '${q.iterator}'`);
      const rows = await p.messages.listAttempts(p.db, endpointId, { ...q, beforeKey });
      return pageOf(rows, q.limit, toAttemptRead);
    },

    /** Sends again every message the endpoint failed to receive in [since, until). */
    async recover(endpointId: string, since: Date, until: Date | undefined) {
      const end = until ?? new Date(now());
      if (end.getTime() <= since.getTime()) throw new WebhookRequestError(400, "until: must be after since");
      if (end.getTime() - since.getTime() > MAX_RECOVERY_WINDOW_MS)
        throw new WebhookRequestError(400, "since: the window may span at most 14 days");
      await mustGet(endpointId);
      const keys = await p.db.transaction(async (tx) => {
        const reopened = await p.messages.reopenFailed(tx, endpointId, since, end);
        await enqueueJobs(
          tx,
          WEBHOOK_DELIVERY_QUEUE,
          reopened.map((messageKey): DeliveryJobPayload => ({ endpointId, messageKey, trigger: 1 })),
          { maxAttempts: DELIVERY_JOB_ATTEMPTS },
        );
        return reopened;
      });
      return { messages: keys.length };
    },
  };
}

export type WebhookEndpointsService = ReturnType<typeof createWebhookEndpointsService>;
