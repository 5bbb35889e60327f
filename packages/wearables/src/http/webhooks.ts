/**
 * The webhook routes: the spec's six (event types, endpoints, an endpoint's secret) with the anchor's 0.9
 * shapes, and what the anchor's users asked for: the message list and an endpoint's attempts (Svix's shapes),
 * a test message, secret rotation and recovery. Every one takes the service key, as the spec says (the
 * anchor's need a dashboard login).
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { parseQueryDatetime } from "../domain/queryDates.ts";
import { type WebhookEndpointsService, WebhookRequestError } from "../services/webhookEndpoints.ts";
import { EVENT_TYPES } from "../webhooks/eventTypes.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { ErrorBody, Nullable } from "./schemas.ts";

export const webhooksTag = {
  name: "Webhooks",
  description:
    "Endpoints that receive signed events (Standard Webhooks, also under Svix's header names) when data arrives.",
};

const ENDPOINT_ID = "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f";
const ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID,
  url: "https://example.com/webhooks/wearables",
  description: "Production receiver",
  filter_types: ["workout.created", "sleep.created"],
  user_id: null,
  disabled: false,
  created_at: "2026-05-01T10:00:00.000Z",
  updated_at: "2026-05-01T10:00:00.000Z",
};

const EndpointResponse = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    url: Type.String(),
    description: Nullable(Type.String()),
    filter_types: Nullable(Type.Array(Type.String(), { description: "Event types received; null: every type." })),
    user_id: Nullable(Type.String({ format: "uuid", description: "Only this user's events; null: every user's." })),
    disabled: Type.Boolean({ description: "Disabled after five days in which every attempt failed, or by a PATCH." }),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
  },
  { examples: [ENDPOINT_EXAMPLE] },
);

const Url = Type.String({
  maxLength: 2048,
  description: "http or https; never a private, loopback or link-local address unless the operator allows it.",
});
const FilterTypes = Type.Array(Type.String({ maxLength: 120 }), {
  maxItems: 200,
  description: "Event types to receive (`GET /webhooks/event-types`); absent or null: every type.",
});
const UserId = Type.String({ format: "uuid", description: "Only this user's events." });
const Description = Type.String({ maxLength: 1000 });

const EndpointPath = Type.Object({ endpoint_id: Type.String({ format: "uuid" }) });

const MessageResponse = Type.Object({
  id: Type.String({ description: "The `webhook-id` the receiver saw, the same on every attempt." }),
  eventType: Type.String(),
  eventId: Nullable(Type.String({ description: "The cause's idempotency key." })),
  timestamp: Type.String({ format: "date-time" }),
  channels: Nullable(Type.Array(Type.String())),
  tags: Nullable(Type.Array(Type.String())),
  payload: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

const MESSAGE_EXAMPLE = {
  id: "msg_2pQbXyLsGkq0m3vF7hT1uZrWc9d",
  eventType: "workout.created",
  eventId: "workout.created.7c9e6679-7425-40de-944b-e07fc1f90ae7",
  timestamp: "2026-05-01T07:00:00.000Z",
  channels: ["user.3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"],
  tags: null,
  payload: { type: "workout.created", data: { id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" } },
};

const AttemptResponse = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  msgId: Type.String(),
  url: Type.String(),
  response: Type.String({ description: "The receiver's answer, its first 4 KiB (or why nothing was sent)." }),
  responseStatusCode: Type.Integer({ description: "0 when no HTTP answer came (refused, timed out, unreachable)." }),
  responseDurationMs: Type.Integer(),
  status: Type.Integer({ description: "0 success, 2 fail (Svix's MessageStatus)." }),
  statusText: Nullable(Type.String()),
  triggerType: Type.Integer({ description: "0 scheduled, 1 manual (a recovery)." }),
  timestamp: Type.String({ format: "date-time" }),
  msg: Nullable(MessageResponse),
});

const Paged = <T extends ReturnType<typeof Type.Object>>(item: T, example: unknown) =>
  Type.Object(
    {
      data: Type.Array(item),
      done: Type.Boolean({ description: "True on the last page." }),
      iterator: Nullable(Type.String({ description: "Pass as `iterator` for the next (older) page." })),
      prevIterator: Nullable(Type.String()),
    },
    { examples: [{ data: [example], done: true, iterator: null, prevIterator: null }] },
  );

const ListQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 250, default: 50 }),
  iterator: Type.Optional(Nullable(Type.String({ maxLength: 64, description: "From the previous page." }))),
  before: Type.Optional(Nullable(Type.String({ maxLength: 64, description: "Only what was created before." }))),
  after: Type.Optional(Nullable(Type.String({ maxLength: 64, description: "Only what was created after." }))),
};

const notFound = { 404: ErrorBody(`Webhook endpoint ${ENDPOINT_ID} not found`) };

function asHttpError(error: unknown): never {
  if (error instanceof WebhookRequestError) throw new HttpError(error.statusCode, error.message);
  throw error;
}

const date = (name: string, raw: string | null | undefined): Date | undefined => {
  if (raw === undefined || raw === null) return undefined;
  try {
    return parseQueryDatetime(raw);
  } catch {
    throw new HttpError(400, `${name}: '${raw}' is not a date-time`);
  }
};

export function registerWebhookRoutes(app: HttpServer, webhooks: WebhookEndpointsService) {
  const tags = [webhooksTag.name];

  app.get(
    "/webhooks/event-types",
    {
      schema: {
        operationId: "listEventTypes",
        tags,
        summary: "List webhook event types",
        description:
          "Every event type: connection and sync lifecycle, workout and sleep sessions, and for samples a group " +
          "event per category (`child_events`: its granular `series.<type>.created` events) and the granular ones.",
        response: {
          200: Type.Array(
            Type.Object({
              name: Type.String(),
              description: Type.String(),
              child_events: Nullable(Type.Array(Type.String())),
            }),
            {
              examples: [
                [
                  {
                    name: "heart_rate.created",
                    description: "Heart rate samples.",
                    child_events: ["series.heart_rate.created", "series.resting_heart_rate.created"],
                  },
                ],
              ],
            },
          ),
          ...unauthorized,
        },
      },
    },
    async () => [...EVENT_TYPES],
  );

  app.post(
    "/webhooks/endpoints",
    {
      schema: {
        operationId: "createWebhookEndpoint",
        tags,
        summary: "Register webhook endpoint",
        description: "Registers a receiver and generates its signing secret (`GET …/secret`).",
        body: Type.Object(
          {
            url: Url,
            description: Type.Optional(Nullable(Description)),
            filter_types: Type.Optional(Nullable(FilterTypes)),
            user_id: Type.Optional(Nullable(UserId)),
          },
          { examples: [{ url: ENDPOINT_EXAMPLE.url, filter_types: ["workout.created"] }] },
        ),
        response: {
          201: EndpointResponse,
          400: ErrorBody("Unknown event type 'workout.updated' (see GET /webhooks/event-types)"),
          404: ErrorBody("User with ID: 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12 not found."),
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const endpoint = await webhooks
        .create({
          url: b.url,
          description: b.description ?? null,
          filter_types: b.filter_types ?? null,
          user_id: b.user_id ?? null,
        })
        .catch(asHttpError);
      return reply.code(201).send(endpoint);
    },
  );

  app.get(
    "/webhooks/endpoints",
    {
      schema: {
        operationId: "listWebhookEndpoints",
        tags,
        summary: "List webhook endpoints",
        description: "Every registered endpoint, oldest first, enabled or not.",
        response: { 200: Type.Array(EndpointResponse, { examples: [[ENDPOINT_EXAMPLE]] }), ...unauthorized },
      },
    },
    async () => webhooks.list(),
  );

  app.get(
    "/webhooks/endpoints/:endpoint_id",
    {
      schema: {
        operationId: "getWebhookEndpoint",
        tags,
        summary: "Get webhook endpoint",
        description: "One endpoint: its URL, filters, user scope and whether it is disabled.",
        params: EndpointPath,
        response: { 200: EndpointResponse, ...notFound, ...unauthorized },
      },
    },
    async (request) => webhooks.get(request.params.endpoint_id).catch(asHttpError),
  );

  app.patch(
    "/webhooks/endpoints/:endpoint_id",
    {
      schema: {
        operationId: "updateWebhookEndpoint",
        tags,
        summary: "Update webhook endpoint",
        description:
          "Changes the fields the body holds: an explicit null clears one (`filter_types: null`: every type), an " +
          "absent one stays. `disabled: false` enables an endpoint again (its failure record cleared).",
        params: EndpointPath,
        body: Type.Object(
          {
            url: Type.Optional(Nullable(Url)),
            description: Type.Optional(Nullable(Description)),
            filter_types: Type.Optional(Nullable(FilterTypes)),
            user_id: Type.Optional(Nullable(UserId)),
            disabled: Type.Optional(Nullable(Type.Boolean())),
          },
          { examples: [{ filter_types: null, disabled: false }] },
        ),
        response: {
          200: EndpointResponse,
          400: ErrorBody("url: must be http or https"),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const b = request.body;
      if (b.url === null) throw new HttpError(400, "url: cannot be cleared");
      return webhooks
        .update(request.params.endpoint_id, {
          url: b.url,
          description: b.description,
          filter_types: b.filter_types,
          user_id: b.user_id,
          disabled: b.disabled ?? undefined,
        })
        .catch(asHttpError);
    },
  );

  app.delete(
    "/webhooks/endpoints/:endpoint_id",
    {
      schema: {
        operationId: "deleteWebhookEndpoint",
        tags,
        summary: "Delete webhook endpoint",
        description: "Deletes the endpoint with its deliveries and attempts; its pending attempts are not sent.",
        params: EndpointPath,
        response: { 204: Type.Null({ description: "Deleted." }), ...notFound, ...unauthorized },
      },
    },
    async (request, reply) => {
      await webhooks.delete(request.params.endpoint_id).catch(asHttpError);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/webhooks/endpoints/:endpoint_id/secret",
    {
      schema: {
        operationId: "getWebhookEndpointSecret",
        tags,
        summary: "Get endpoint secret",
        description: "The secret that signs deliveries: verify them with any Standard Webhooks or Svix library.",
        params: EndpointPath,
        response: {
          200: Type.Object({ key: Type.String() }, { examples: [{ key: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD" }] }),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request) => webhooks.secret(request.params.endpoint_id).catch(asHttpError),
  );

  app.post(
    "/webhooks/endpoints/:endpoint_id/secret/rotate",
    {
      schema: {
        operationId: "rotateWebhookEndpointSecret",
        tags,
        summary: "Rotate endpoint secret",
        description:
          "A new secret (generated, or `key`); for 24 hours deliveries carry a signature under the old one too.",
        params: EndpointPath,
        body: Type.Optional(
          Type.Object({ key: Type.Optional(Nullable(Type.String({ maxLength: 106 }))) }, { examples: [{ key: null }] }),
        ),
        response: {
          204: Type.Null({ description: "Rotated." }),
          400: ErrorBody("key: must be whsec_ and 32 to 100 base64 characters"),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      await webhooks.rotateSecret(request.params.endpoint_id, request.body?.key).catch(asHttpError);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/webhooks/endpoints/:endpoint_id/test",
    {
      schema: {
        operationId: "sendWebhookTestEvent",
        tags,
        summary: "Send test event",
        description:
          "Sends an example event of `event_type` to this endpoint only, signed and retried as any other (when " +
          "the endpoint filters types and this one is not among them: its first filtered type).",
        params: EndpointPath,
        body: Type.Optional(
          Type.Object(
            { event_type: Type.String({ default: "workout.created", maxLength: 120 }) },
            { examples: [{ event_type: "workout.created" }] },
          ),
        ),
        response: {
          200: Type.Object(
            { success: Type.Boolean(), message_id: Type.String(), event_type: Type.String() },
            { examples: [{ success: true, message_id: MESSAGE_EXAMPLE.id, event_type: "workout.created" }] },
          ),
          400: ErrorBody("Unknown event type 'x' (see GET /webhooks/event-types)"),
          409: ErrorBody(`Webhook endpoint ${ENDPOINT_ID} is disabled: PATCH it with disabled=false`),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request) =>
      webhooks.sendTest(request.params.endpoint_id, request.body?.event_type ?? "workout.created").catch(asHttpError),
  );

  app.post(
    "/webhooks/endpoints/:endpoint_id/recover",
    {
      schema: {
        operationId: "recoverWebhookEndpoint",
        tags,
        summary: "Recover failed messages",
        description:
          "Sends again every message this endpoint failed to receive (all attempts spent, or disabled meanwhile) " +
          "that was created in [since, until); the window spans at most 14 days. Resends are manual attempts: " +
          "one each, not rescheduled.",
        params: EndpointPath,
        body: Type.Object(
          {
            since: Type.String({ maxLength: 64 }),
            until: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
          },
          { examples: [{ since: "2026-05-01T00:00:00Z" }] },
        ),
        response: {
          202: Type.Object(
            {
              id: Type.String(),
              status: Type.String(),
              task: Type.String(),
              updatedAt: Type.String({ format: "date-time" }),
              data: Type.Object({ messages: Type.Integer({ description: "Messages queued again." }) }),
            },
            {
              examples: [
                {
                  id: "qtask_2pQbXyLsGkq0m3vF7hT1uZrWc9d",
                  status: "finished",
                  task: "endpoint.recover",
                  updatedAt: "2026-05-02T10:00:00.000Z",
                  data: { messages: 12 },
                },
              ],
            },
          ),
          400: ErrorBody("since: the window may span at most 14 days"),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      const since = date("since", request.body.since) as Date;
      const until = date("until", request.body.until);
      const r = await webhooks.recover(request.params.endpoint_id, since, until).catch(asHttpError);
      return reply.code(202).send({
        id: `qtask_${request.id}`,
        status: "finished",
        task: "endpoint.recover",
        updatedAt: new Date().toISOString(),
        data: r,
      });
    },
  );

  app.get(
    "/webhooks/messages",
    {
      schema: {
        operationId: "listWebhookMessages",
        tags,
        summary: "List webhook messages",
        description:
          "Messages written for endpoints, newest first (a message is written only when an endpoint wants it).",
        querystring: Type.Object(ListQuery),
        response: {
          200: Paged(MessageResponse, MESSAGE_EXAMPLE),
          400: ErrorBody("iterator: unknown 'msg_x'"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return webhooks
        .messages({
          limit: q.limit,
          iterator: q.iterator ?? undefined,
          before: date("before", q.before),
          after: date("after", q.after),
        })
        .catch(asHttpError);
    },
  );

  app.get(
    "/webhooks/endpoints/:endpoint_id/attempts",
    {
      schema: {
        operationId: "listWebhookEndpointAttempts",
        tags,
        summary: "List endpoint attempts",
        description: "Every attempt at delivering to this endpoint, newest first, with its message.",
        params: EndpointPath,
        querystring: Type.Object({
          ...ListQuery,
          status: Type.Optional(
            Nullable(Type.Union([Type.Literal(0), Type.Literal(2)], { description: "0 success, 2 fail." })),
          ),
          event_types: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 120 }), { maxItems: 50 }))),
        }),
        response: {
          200: Paged(AttemptResponse, {
            id: "atmpt_2pQbY0aT3kq1n4wG8iU2vAsXd0e",
            endpointId: ENDPOINT_ID,
            msgId: MESSAGE_EXAMPLE.id,
            url: ENDPOINT_EXAMPLE.url,
            response: "ok",
            responseStatusCode: 200,
            responseDurationMs: 42,
            status: 0,
            statusText: "success",
            triggerType: 0,
            timestamp: "2026-05-01T07:00:01.000Z",
            msg: MESSAGE_EXAMPLE,
          }),
          ...notFound,
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return webhooks
        .attempts(request.params.endpoint_id, {
          limit: q.limit,
          iterator: q.iterator ?? undefined,
          before: date("before", q.before),
          after: date("after", q.after),
          status: q.status ?? undefined,
          eventTypes: q.event_types ?? undefined,
        })
        .catch(asHttpError);
    },
  );
}
