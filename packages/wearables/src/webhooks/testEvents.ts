/**
 * The example payload of each event type, for `POST /webhooks/endpoints/{id}/test`: built by the same builders
 * as real events, with fixed example values, so a receiver sees exactly the shape it will get.
 */
import { seriesTypeByCode } from "../domain/seriesTypes.ts";
import { GROUP_OF_SERIES } from "./eventTypes.ts";
import {
  connectionCreated,
  connectionRevoked,
  seriesCreated,
  sleepCreated,
  syncCompleted,
  syncFailed,
  syncStarted,
  type WebhookEvent,
  workoutCreated,
} from "./webhookEvents.ts";

const EXAMPLE_USER = "00000000-0000-4000-8000-000000000000";
const EXAMPLE_ID = "00000000-0000-4000-8000-000000000001";
const START = new Date("2026-05-01T06:00:00.000Z");
const END = new Date("2026-05-01T06:45:00.000Z");
const source = { provider: "sandbox", device: "Sandbox Watch" };
const run = { userId: EXAMPLE_USER, provider: "sandbox", source: "pull", runId: EXAMPLE_ID, message: "test" };

/** The data an event of `type` carries, with example values (`type` must be in the catalogue). */
export function exampleEvent(type: string): Omit<WebhookEvent, "eventId" | "onlyEndpointId"> {
  const of = (e: WebhookEvent) => ({ type, userId: e.userId, data: e.data });
  switch (type) {
    case "workout.created":
      return of(
        workoutCreated({
          id: EXAMPLE_ID,
          userId: EXAMPLE_USER,
          source,
          type: "running",
          startTime: START,
          endTime: END,
          zoneOffset: "+02:00",
          durationSeconds: 2700,
          caloriesKcal: 512,
          distanceMeters: 8200,
          avgHeartRateBpm: 148,
          maxHeartRateBpm: 171,
        }),
      );
    case "sleep.created":
      return of(
        sleepCreated({
          id: EXAMPLE_ID,
          userId: EXAMPLE_USER,
          source,
          startTime: new Date("2026-04-30T22:30:00.000Z"),
          endTime: START,
          zoneOffset: "+02:00",
          durationSeconds: 27_000,
          efficiencyPercent: 92,
          stages: { deep: 80, light: 250, rem: 95, awake: 25 },
          isNap: false,
        }),
      );
    case "connection.created":
      return of(connectionCreated({ userId: EXAMPLE_USER, provider: "sandbox", connectionId: EXAMPLE_ID, at: START }));
    case "connection.revoked":
      return of(
        connectionRevoked({
          userId: EXAMPLE_USER,
          provider: "sandbox",
          connectionId: EXAMPLE_ID,
          at: START,
          reason: "refresh_failed",
        }),
      );
    case "sync.started":
      return of(syncStarted(run));
    case "sync.completed":
      return of(syncCompleted({ ...run, status: "success", itemsProcessed: 42 }));
    case "sync.failed":
      return of(syncFailed({ ...run, error: "the vendor answered 503" }));
  }
  // A series event: its own type; a group: its first member.
  const code = type.startsWith("series.")
    ? type.slice("series.".length, -".created".length)
    : [...GROUP_OF_SERIES].find(([, group]) => group === type)?.[0];
  const series = code ? seriesTypeByCode(code) : undefined;
  if (series) {
    const [event] = seriesCreated({
      userId: EXAMPLE_USER,
      provider: "sandbox",
      seriesType: series.code,
      batchKey: EXAMPLE_ID,
      samples: [
        {
          timestamp: START.toISOString(),
          zone_offset: "+02:00",
          type: series.code,
          value: 62,
          unit: series.unit,
          is_daily_total: null,
        },
      ],
    });
    if (event) return { type, userId: event.userId, data: event.data };
  }
  return { type, userId: null, data: { message: `a test ${type} event` } };
}
