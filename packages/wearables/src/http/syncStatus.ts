/**
 * What sync runs did, as the anchor's 0.9 shows it: `GET /users/{user_id}/sync/runs` and `GET /sync/runs`
 * (run summaries), `GET /users/{user_id}/sync/recent` (status events) and `GET /users/{user_id}/sync/stream`
 * (the same events live, as server-sent events). Events are read from the database by sequence, so a stream
 * on any instance sees the runs of every worker.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SyncEventRow, SyncRunRow, SyncRunsRepository } from "../store/syncRunsRepository.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { providersTag } from "./oauth.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

const SOURCES = ["pull", "webhook", "sdk", "backfill", "xml_import", "linked_account"] as const;
const STAGES = ["queued", "started", "fetching", "processing", "saving", "completed", "failed", "cancelled"] as const;
const STATUSES = [
  "in_progress",
  "success",
  "partial",
  "failed",
  "cancelled",
  "skipped",
  "unfinished",
  "stale",
] as const;
/** How often a stream looks for new events; a heartbeat comment keeps proxies from closing it. */
const STREAM_POLL_MS = 1_000;
const HEARTBEAT_MS = 15_000;

const RUN_EXAMPLE = {
  run_id: "9b2f6a0e-3c1d-4e5f-8a7b-6c5d4e3f2a1b",
  user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
  provider: "sandbox",
  source: "backfill",
  stage: "completed",
  status: "success",
  message: "synced 412 records",
  progress: 1,
  items_processed: 412,
  items_total: null,
  error: null,
  primary_user_id: null,
  started_at: "2026-11-27T10:00:01.000Z",
  ended_at: "2026-11-27T10:00:04.000Z",
  last_update: "2026-11-27T10:00:04.000Z",
};

const SyncRunSummary = Type.Object(
  {
    run_id: Type.String(),
    user_id: Type.String({ format: "uuid" }),
    provider: Type.String(),
    source: StringEnum(SOURCES),
    stage: StringEnum(STAGES),
    status: StringEnum(STATUSES),
    message: Nullable(Type.String()),
    progress: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    items_processed: Nullable(Type.Integer()),
    items_total: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    primary_user_id: Nullable(Type.String({ format: "uuid" })),
    started_at: Nullable(Type.String({ format: "date-time" })),
    ended_at: Nullable(Type.String({ format: "date-time" })),
    last_update: Type.String({ format: "date-time" }),
  },
  { examples: [RUN_EXAMPLE] },
);

const EVENT_EXAMPLE = {
  event_id: "5e4d3c2b-1a09-4876-9543-210fedcba987",
  run_id: RUN_EXAMPLE.run_id,
  user_id: RUN_EXAMPLE.user_id,
  provider: "sandbox",
  source: "backfill",
  scope: "historical",
  stage: "processing",
  status: "in_progress",
  message: "workouts: 25 records",
  progress: 0.125,
  items_processed: 25,
  items_total: null,
  error: null,
  primary_user_id: null,
  metadata: {},
  window_start: "2026-08-29T10:00:00.000Z",
  window_end: "2026-11-27T10:00:00.000Z",
  started_at: "2026-11-27T10:00:01.000Z",
  ended_at: null,
  timestamp: "2026-11-27T10:00:02.000Z",
};

const SyncStatusEvent = Type.Object(
  {
    event_id: Type.String({ format: "uuid" }),
    run_id: Type.String(),
    user_id: Type.String({ format: "uuid" }),
    provider: Type.String(),
    source: StringEnum(SOURCES),
    scope: StringEnum(["historical", "live"]),
    stage: StringEnum(STAGES),
    status: StringEnum(STATUSES),
    message: Nullable(Type.String()),
    progress: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    items_processed: Nullable(Type.Integer({ minimum: 0 })),
    items_total: Nullable(Type.Integer({ minimum: 0 })),
    error: Nullable(Type.String()),
    primary_user_id: Nullable(Type.String({ format: "uuid" })),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    window_start: Nullable(Type.String({ format: "date-time" })),
    window_end: Nullable(Type.String({ format: "date-time" })),
    started_at: Nullable(Type.String({ format: "date-time" })),
    ended_at: Nullable(Type.String({ format: "date-time" })),
    timestamp: Type.String({ format: "date-time" }),
  },
  { examples: [EVENT_EXAMPLE] },
);

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toRunSummary(r: SyncRunRow) {
  return {
    run_id: r.id,
    user_id: r.user_id,
    provider: r.provider,
    source: r.source,
    stage: r.stage,
    status: r.status,
    message: r.message,
    progress: r.status === "success" ? 1 : r.kinds.length ? Math.min(1, r.kind_index / r.kinds.length) : null,
    items_processed: r.items_processed,
    items_total: null,
    error: r.error,
    primary_user_id: null,
    started_at: iso(r.started_at),
    ended_at: iso(r.ended_at),
    last_update: r.updated_at.toISOString(),
  };
}

function toEvent(e: SyncEventRow) {
  return {
    event_id: e.id,
    run_id: e.run_id,
    user_id: e.user_id,
    provider: e.provider,
    source: e.source,
    scope: e.scope,
    stage: e.stage,
    status: e.status,
    message: e.message,
    progress: e.progress,
    items_processed: e.items_processed,
    items_total: null,
    error: e.error,
    primary_user_id: null,
    metadata: {},
    window_start: iso(e.window_start),
    window_end: iso(e.window_end),
    started_at: iso(e.started_at),
    ended_at: iso(e.ended_at),
    timestamp: e.created_at.toISOString(),
  };
}

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });
const badUser = ErrorBody('path.user_id: must match format "uuid"');

export function registerSyncStatusRoutes(app: HttpServer, runs: SyncRunsRepository) {
  app.get(
    "/users/:user_id/sync/runs",
    {
      schema: {
        operationId: "listSyncRunSummaries",
        tags: [providersTag.name],
        summary: "List sync run summaries",
        description: "The user's sync runs, newest first, with stage, status and counts.",
        params: UserPath,
        querystring: Type.Object({ limit: Type.Integer({ default: 20, minimum: 1, maximum: 200 }) }),
        response: { 200: Type.Array(SyncRunSummary, { examples: [[RUN_EXAMPLE]] }), 400: badUser, ...unauthorized },
      },
    },
    async (request) =>
      (await runs.listRuns({ userId: request.params.user_id, limit: request.query.limit })).map(toRunSummary),
  );

  app.get(
    "/sync/runs",
    {
      schema: {
        operationId: "listAllSyncRunSummaries",
        tags: [providersTag.name],
        summary: "List all sync run summaries",
        description: "Every user's sync runs, newest first, filtered by user, provider, status or source.",
        querystring: Type.Object({
          limit: Type.Integer({ default: 50, minimum: 1, maximum: 10_000 }),
          user_id: Type.Optional(Nullable(Type.String({ format: "uuid" }))),
          provider: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
          status: Type.Optional(Nullable(StringEnum(STATUSES))),
          source: Type.Optional(Nullable(StringEnum(SOURCES))),
        }),
        response: {
          200: Type.Array(SyncRunSummary, { examples: [[RUN_EXAMPLE]] }),
          400: ErrorBody("query.limit: must be <= 10000"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return (
        await runs.listRuns({
          userId: q.user_id ?? undefined,
          provider: q.provider ?? undefined,
          status: q.status ?? undefined,
          source: q.source ?? undefined,
          limit: q.limit,
        })
      ).map(toRunSummary);
    },
  );

  app.get(
    "/users/:user_id/sync/recent",
    {
      schema: {
        operationId: "listRecentSyncEvents",
        tags: [providersTag.name],
        summary: "List recent sync events",
        description: "The user's latest sync status events, newest first.",
        params: UserPath,
        querystring: Type.Object({ limit: Type.Integer({ default: 50, minimum: 1, maximum: 200 }) }),
        response: { 200: Type.Array(SyncStatusEvent, { examples: [[EVENT_EXAMPLE]] }), 400: badUser, ...unauthorized },
      },
    },
    async (request) => (await runs.recentEvents(request.params.user_id, request.query.limit)).map(toEvent),
  );

  const streams = new Set<() => void>();
  app.addHook("onClose", async () => {
    for (const end of streams) end();
  });
  app.get(
    "/users/:user_id/sync/stream",
    {
      schema: {
        operationId: "streamUserSyncStatus",
        tags: [providersTag.name],
        summary: "Stream user sync status",
        description:
          "Server-sent events: the last `replay` status events, then each new one as it happens (`event: sync`, " +
          "`id` its sequence, `data` a SyncStatusEvent). A `Last-Event-ID` header resumes after that event.",
        params: UserPath,
        querystring: Type.Object({ replay: Type.Integer({ default: 20, minimum: 1, maximum: 200 }) }),
        response: {
          200: {
            description: "Server-sent events, each a SyncStatusEvent.",
            content: {
              "text/event-stream": {
                schema: Type.String({ examples: ["event: sync\nid: 42\ndata: {…}\n\n"] }),
              },
            },
          },
          400: badUser,
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      const userId = request.params.user_id;
      const resumeFrom = request.headers["last-event-id"];
      const replayed = /^\d+$/.test(String(resumeFrom ?? ""))
        ? await runs.eventsAfter(userId, String(resumeFrom))
        : (await runs.recentEvents(userId, request.query.replay)).reverse();
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      // Headers go out at once (a client waits for them before its first event), with the retry hint.
      res.write("retry: 3000\n\n");
      let last = "0";
      const send = (e: SyncEventRow) => {
        last = e.seq;
        res.write(`event: sync\nid: ${e.seq}\ndata: ${JSON.stringify(toEvent(e))}\n\n`);
      };
      for (const e of replayed) send(e);
      if (replayed.length === 0) {
        // Nothing yet: start after the newest event of the user, whatever it is.
        const [newest] = await runs.recentEvents(userId, 1);
        last = newest?.seq ?? "0";
      }
      let closed = false;
      let busy = false;
      const poll = setInterval(async () => {
        if (closed || busy) return;
        busy = true;
        try {
          for (const e of await runs.eventsAfter(userId, last)) send(e);
        } catch (error) {
          request.log.warn({ err: error }, "sync stream poll failed");
        } finally {
          busy = false;
        }
      }, STREAM_POLL_MS);
      const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
      const end = () => {
        if (closed) return;
        closed = true;
        clearInterval(poll);
        clearInterval(heartbeat);
        streams.delete(end);
        res.end();
      };
      streams.add(end);
      request.raw.on("close", end);
    },
  );
}
