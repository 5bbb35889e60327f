/**
 * One attempt at one delivery (a job of `wearables.webhook-delivery`), in named steps:
 * 1. load the delivery, its message and its endpoint; one already settled, or of a disabled endpoint, ends here;
 * 2. take a slot of the endpoint (at most `endpointConcurrency` in flight per process): a busy endpoint's
 *    attempt is put back a moment, so a slow receiver never holds the pool;
 * 3. send it, signed, through the SSRF-guarded client (the message's own id, a fresh timestamp);
 * 4. in one transaction with the job's completion: the attempt, the delivery's new state, the next attempt's
 *    job (Svix's schedule), the endpoint's failing streak, and at exhaustion the five-day disable rule.
 * A kill anywhere before step 4 commits re-runs the job: the receiver may get the message twice, with one id
 * (at-least-once); nothing is lost and no attempt is recorded twice.
 */
import {
  enqueueJob,
  type GuardedHttpClient,
  type GuardedResponse,
  type JobContext,
  type Logger,
  OutboundRefusedError,
  OutboundTimeoutError,
  type Queryable,
  type SecretBox,
  webhookHeaders,
} from "@platform/kernel";
import { retryAfterMs } from "../providers/vendorClient.ts";
import type { WebhookEndpointsRepository } from "../store/webhookEndpointsRepository.ts";
import type { DeliveryToSend, WebhookMessagesRepository } from "../store/webhookMessagesRepository.ts";
import { nextAttemptDelayMs } from "./retrySchedule.ts";
import { newAttemptId } from "./webhookIds.ts";
import {
  DELIVERY_JOB_ATTEMPTS,
  type DeliveryJobPayload,
  WEBHOOK_DELIVERY_QUEUE,
  type WebhookOutbox,
} from "./webhookOutbox.ts";

/** Svix disables an endpoint whose every attempt failed for this long (`endpoint_failure_disable_after`). */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** Response text kept per attempt. */
const RESPONSE_LIMIT = 4096;
const USER_AGENT = "platform-wearables-webhooks/1";

export interface CreateDeliveryHandlerParameters {
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> } & Queryable;
  logger: Pick<Logger, "info" | "warn">;
  endpoints: WebhookEndpointsRepository;
  messages: WebhookMessagesRepository;
  outbox: WebhookOutbox;
  secrets: SecretBox;
  client: GuardedHttpClient;
  timeoutMs: number;
  endpointConcurrency: number;
  now?: () => number;
  random?: () => number;
}

/** The associated data an endpoint's secret is sealed with: a sealed secret moved to another row won't open. */
export const endpointSecretAssociatedData = (endpointId: string) => `wearables.webhook_endpoints:${endpointId}`;

interface Outcome {
  ok: boolean;
  statusCode: number;
  response: string;
  durationMs: number;
  overloaded: boolean;
  retryAfterMs?: number | undefined;
}

export function createDeliveryHandler(p: CreateDeliveryHandlerParameters) {
  const now = p.now ?? Date.now;
  const inFlight = new Map<string, number>();

  function secretsOf(d: DeliveryToSend): string[] {
    const aad = endpointSecretAssociatedData(d.endpoint_id);
    const list = [p.secrets.open(d.secret_sealed, aad)];
    if (d.previous_secret_sealed && d.previous_secret_expires_at && d.previous_secret_expires_at.getTime() > now())
      list.push(p.secrets.open(d.previous_secret_sealed, aad));
    return list;
  }

  async function send(d: DeliveryToSend, signal: AbortSignal): Promise<Outcome> {
    const body = JSON.stringify(d.payload);
    const started = now();
    const headers = {
      ...webhookHeaders({ id: d.message_id, timestampSec: Math.floor(started / 1000), body, secrets: secretsOf(d) }),
      "content-type": "application/json",
      "user-agent": USER_AGENT,
    };
    let res: GuardedResponse;
    try {
      res = await p.client.send({
        url: d.url,
        method: "POST",
        headers,
        body,
        timeoutMs: p.timeoutMs,
        maxResponseBytes: RESPONSE_LIMIT,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      const e = error as Error & { code?: string };
      const refused = e instanceof OutboundRefusedError;
      return {
        ok: false,
        statusCode: 0,
        response: refused ? `refused: ${e.message}` : `${e.code ?? e.name}: ${e.message}`.slice(0, RESPONSE_LIMIT),
        durationMs: now() - started,
        overloaded: e instanceof OutboundTimeoutError,
      };
    }
    return {
      ok: res.status >= 200 && res.status < 300,
      statusCode: res.status,
      response: res.body,
      durationMs: res.durationMs,
      overloaded: res.status === 429,
      retryAfterMs: retryAfterMs([res.headers["retry-after"]].flat()[0] ?? null, now()),
    };
  }

  /** Step 4: everything the attempt changes, with the job's completion. */
  async function record(job: JobContext<DeliveryJobPayload>, d: DeliveryToSend, o: Outcome) {
    const { endpointId, messageKey, trigger } = job.payload;
    const disabled = await p.db.transaction(async (tx) => {
      const attempt = {
        id: newAttemptId(now()),
        endpoint_id: endpointId,
        message_key: messageKey,
        url: d.url,
        response: o.response,
        response_status_code: o.statusCode,
        response_duration_ms: Math.round(o.durationMs),
        status: o.ok ? (0 as const) : (2 as const),
        trigger_type: trigger,
      };
      const attempts = d.attempts + 1;
      if (o.ok) {
        await p.messages.recordAttempt(tx, attempt, { status: "success", attempts, nextAttemptAt: null });
        await job.complete(tx);
        return undefined;
      }
      const delay =
        trigger === 1
          ? undefined
          : nextAttemptDelayMs({ attempts, overloaded: o.overloaded, retryAfterMs: o.retryAfterMs }, p.random);
      if (delay !== undefined) {
        const at = new Date(now() + delay);
        await p.messages.recordAttempt(tx, attempt, { status: "pending", attempts, nextAttemptAt: at });
        await enqueueJob(
          tx,
          WEBHOOK_DELIVERY_QUEUE,
          { endpointId, messageKey, trigger: 0 } satisfies DeliveryJobPayload,
          { runAt: at, maxAttempts: DELIVERY_JOB_ATTEMPTS },
        );
        await job.complete(tx);
        return undefined;
      }
      await p.messages.recordAttempt(tx, attempt, { status: "failed", attempts, nextAttemptAt: null });
      const off = await p.endpoints.disableIfFailingSince(tx, endpointId, new Date(now() - DISABLE_AFTER_MS));
      if (off) {
        await p.outbox.emit(tx, [
          {
            type: "endpoint.disabled",
            eventId: `endpoint.disabled.${off.id}.${off.disabled_at?.getTime() ?? now()}`,
            userId: off.user_id,
            data: {
              endpoint_id: off.id,
              url: off.url,
              failing_since: off.failing_since?.toISOString() ?? null,
              disabled_at: off.disabled_at?.toISOString() ?? null,
            },
          },
        ]);
      }
      await job.complete(tx);
      return off;
    });
    if (disabled) p.logger.warn({ endpointId, url: disabled.url }, "webhook endpoint disabled: five days of failures");
  }

  return async function deliver(job: JobContext<DeliveryJobPayload>): Promise<void> {
    const { endpointId, messageKey } = job.payload;
    // 1. what to send
    const d = await p.messages.deliveryToSend(p.db, endpointId, messageKey);
    if (d?.status !== "pending") return;
    if (d.disabled) {
      await p.db.transaction(async (tx) => {
        await p.messages.updateDelivery(tx, endpointId, messageKey, {
          status: "failed",
          attempts: d.attempts,
          nextAttemptAt: null,
        });
        await job.complete(tx);
      });
      return;
    }
    // 2. a slot of the endpoint
    const busy = inFlight.get(endpointId) ?? 0;
    if (busy >= p.endpointConcurrency) {
      await p.db.transaction(async (tx) => {
        await enqueueJob(tx, WEBHOOK_DELIVERY_QUEUE, job.payload, {
          delayMs: 250 + Math.floor((p.random ?? Math.random)() * 750),
          maxAttempts: DELIVERY_JOB_ATTEMPTS,
        });
        await job.complete(tx);
      });
      return;
    }
    inFlight.set(endpointId, busy + 1);
    let outcome: Outcome;
    try {
      // 3. the attempt
      outcome = await send(d, job.signal);
    } finally {
      const left = (inFlight.get(endpointId) ?? 1) - 1;
      if (left === 0) inFlight.delete(endpointId);
      else inFlight.set(endpointId, left);
    }
    // 4. its record
    await record(job, d, outcome);
  };
}
