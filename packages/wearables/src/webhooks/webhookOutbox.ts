/**
 * Writes webhook events in the caller's transaction, the one that writes the data causing them (an outbox):
 * the messages commit with the data or not at all. Only what some enabled endpoint wants is written (an
 * import into a service without endpoints pays one small read), a cause already written (`event_id`) is not
 * written again, and each (endpoint, message) gets a delivery and a job for its first attempt.
 *
 * @example
 * await db.transaction(async (tx) => {
 *   const workout = await writer.writeWorkout(tx, …);
 *   await outbox.emit(tx, [workoutCreated({ … })]);
 * });
 */
import { enqueueJobs, type Queryable } from "@platform/kernel";
import {
  createWebhookEndpointsRepository,
  type EndpointFilter,
  type WebhookEndpointsRepository,
} from "../store/webhookEndpointsRepository.ts";
import { createWebhookMessagesRepository, type WebhookMessagesRepository } from "../store/webhookMessagesRepository.ts";
import type { WebhookEvent } from "./webhookEvents.ts";
import { newMessageId } from "./webhookIds.ts";

export const WEBHOOK_DELIVERY_QUEUE = "wearables.webhook-delivery";

/** A delivery job's payload: one attempt at one (endpoint, message). */
export interface DeliveryJobPayload {
  endpointId: string;
  messageKey: string;
  /** 0 scheduled, 1 manual (a recovery's resend: never rescheduled, as Svix). */
  trigger: 0 | 1;
}

/** Infrastructure retries of a delivery job (a database error), apart from the HTTP attempts' schedule. */
export const DELIVERY_JOB_ATTEMPTS = 10;

export interface WebhookOutbox {
  /** Writes what endpoints want of `events`; answers how many messages were written. */
  emit(tx: Queryable, events: readonly WebhookEvent[]): Promise<number>;
  /**
   * What the enabled endpoints want of `userId`'s events, read once for one write, or undefined when none wants
   * any: writers skip building events nobody receives, and emit with the endpoints already read.
   */
  interest(tx: Queryable, userId: string | null): Promise<Interest | undefined>;
}

export interface Interest {
  /** Whether some endpoint wants events of `type`. */
  wants(type: string): boolean;
  /** `emit` with the endpoints this interest was read from. */
  emit(events: readonly WebhookEvent[]): Promise<number>;
}

/** Whether an endpoint receives an event: its user (if scoped) and its event types (if filtered). */
export function endpointWants(endpoint: EndpointFilter, event: WebhookEvent): boolean {
  if (event.onlyEndpointId !== undefined) return endpoint.id === event.onlyEndpointId;
  if (endpoint.user_id !== null && endpoint.user_id !== event.userId) return false;
  return !endpoint.filter_types?.length || endpoint.filter_types.includes(event.type);
}

/**
 * The outbox over its repositories (default: the service's own; the outbox keeps no state, so every builder of
 * a writer may make one).
 */
export function createWebhookOutbox(
  p: { endpoints: WebhookEndpointsRepository; messages: WebhookMessagesRepository } = {
    endpoints: createWebhookEndpointsRepository(),
    messages: createWebhookMessagesRepository(),
  },
): WebhookOutbox {
  async function emitTo(tx: Queryable, endpoints: readonly EndpointFilter[], events: readonly WebhookEvent[]) {
    if (events.length === 0) return 0;
    const wanted = events
      .map((event) => ({ event, to: endpoints.filter((e) => endpointWants(e, event)) }))
      .filter((w) => w.to.length > 0);
    if (wanted.length === 0) return 0;
    const written = await p.messages.insertMessages(
      tx,
      wanted.map(({ event }) => ({
        id: newMessageId(),
        event_type: event.type,
        event_id: event.eventId,
        user_id: event.userId,
        payload: { type: event.type, data: event.data },
      })),
    );
    const keyOf = new Map(written.map((w) => [w.event_id, w.key]));
    const pairs = wanted.flatMap(({ event, to }) => {
      const key = keyOf.get(event.eventId);
      return key === undefined ? [] : to.map((e) => ({ endpoint_id: e.id, message_key: key }));
    });
    const deliveries = await p.messages.insertDeliveries(tx, pairs);
    await enqueueJobs(
      tx,
      WEBHOOK_DELIVERY_QUEUE,
      deliveries.map((d): DeliveryJobPayload => ({ endpointId: d.endpoint_id, messageKey: d.message_key, trigger: 0 })),
      { maxAttempts: DELIVERY_JOB_ATTEMPTS },
    );
    return written.length;
  }

  return {
    async interest(tx, userId) {
      const endpoints = (await p.endpoints.enabledFilters(tx)).filter(
        (e) => e.user_id === null || e.user_id === userId,
      );
      if (endpoints.length === 0) return undefined;
      const types = endpoints.some((e) => !e.filter_types?.length)
        ? undefined
        : new Set(endpoints.flatMap((e) => e.filter_types ?? []));
      return {
        wants: (type) => types?.has(type) ?? true,
        emit: (events) => emitTo(tx, endpoints, events),
      };
    },

    emit: async (tx, events) => (events.length === 0 ? 0 : emitTo(tx, await p.endpoints.enabledFilters(tx), events)),
  };
}
