/**
 * Kill test of the provider sync job: a historical sync of 60 days from the sandbox vendor (dozens of pages:
 * heart rate comes 100 samples a page) runs in a kernel job worker in a child process (syncKillChild.ts) that
 * is SIGKILLed at a random instant (a few ms after its 0th–4th committed page), again and again; each next child takes the job
 * once the dead one's lock expires and resumes from the run's checkpoint, until the run ends. In the end the
 * run is `completed/success` with its checkpoint consumed, every page committed exactly once, and the user
 * holds exactly what an uninterrupted sync of the same window wrote for another user connected to the same
 * vendor account (workouts, sleep, samples, their values, the score nights queued). The database outlives
 * the killed processes: a PGlite folder (or PostgreSQL with TEST_DATABASE_URL). The draws (the kill instants)
 * come from a printed seed; `KILL_TEST_SEED=<seed>` replays them.
 */
import { createLogger, type Database, kernelMigrations, listJobs, loadConfig, type Queryable } from "@platform/kernel";
import {
  createKillTestDatabase,
  type KillTestChildEnd,
  type KillTestDatabase,
  killTestChildren,
  replayableRandom,
} from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { SANDBOX_CLIENT } from "../providers/registry.ts";
import { startSandboxCloud } from "../sandbox/sandboxCloud.ts";
import type { VendorCloud } from "../sandbox/vendorCloud.ts";
import { createConnectionsStore as createConnections } from "../store/connectionsRepository.ts";
import type { SyncRunRow } from "../store/syncRunsRepository.ts";
import { drainQueue } from "../testing/jobWorkers.ts";
import { allowOnStandIn } from "../testing/vendorHarness.ts";
import { createProvidersModule } from "./providersModule.ts";
import { SYNC_QUEUE } from "./syncJob.ts";
import type { SyncChildConfig } from "./syncKillChild.ts";

const CHILD = new URL("./syncKillChild.ts", import.meta.url);
const DAY = 86_400_000;
const DAYS = 60;
/**
 * At most this many children are killed; the one after runs the rest undisturbed. A child on PGlite takes
 * seconds (the folder reopened after a kill), on PostgreSQL a fraction: more kills there, same run time.
 */
const MAX_KILLS = process.env.TEST_DATABASE_URL ? 10 : 6;
const LOGIN = "kill-test-7"; // the sandbox account both users connect to: the same data for both

const children = killTestChildren();
const logger = createLogger({ level: "silent" });
const config = loadConfig({ env: {}, overrides: { logLevel: "silent", wearablesHistoricalDaysOnConnect: 0 } });
let database: KillTestDatabase;
let cloud: VendorCloud;

beforeAll(async () => {
  cloud = await startSandboxCloud({ clients: { [SANDBOX_CLIENT.clientId]: SANDBOX_CLIENT.clientSecret } });
  database = await createKillTestDatabase({
    name: "wearables-sync",
    migrations: [...kernelMigrations(), ...wearablesService.migrations],
  });
}, 120_000);
afterAll(async () => {
  children.killAll();
  await database?.drop();
  await cloud?.close();
});

const providersOn = (db: Database) =>
  createProvidersModule({
    config,
    db,
    logger,
    originOf: (host) => (host === "sandbox" ? cloud.origin : "http://127.0.0.1:1"),
  });

/** A user connected to the sandbox account LOGIN through the OAuth flow (consent allowed, callback). */
async function connectedUser(db: Database, email: string) {
  const [user] = await db.query<{ id: string }>("INSERT INTO wearables.users (email) VALUES ($1) RETURNING id", [
    email,
  ]);
  const userId = (user as { id: string }).id;
  const providers = providersOn(db);
  try {
    const { authorization_url } = await providers.connections.authorize("sandbox", userId, null);
    const back = await allowOnStandIn(authorization_url, LOGIN);
    const outcome = await providers.connections.callback("sandbox", {
      code: back.get("code"),
      state: back.get("state"),
    });
    expect(outcome).toHaveProperty("redirect");
  } finally {
    await providers.close();
  }
  const [connection] = await db.query<{ id: string }>(
    "SELECT id FROM wearables.user_connections WHERE user_id = $1 AND provider = 'sandbox' AND status = 'active'",
    [userId],
  );
  return { userId, connectionId: (connection as { id: string }).id };
}

/** A historical run of the window, and its job, as the API's historical sync queues it. */
async function queueRun(db: Database, connectionId: string, window: { start: number; end: number }) {
  const providers = providersOn(db);
  try {
    const connection = await createConnections(db).get(connectionId);
    if (!connection) throw new Error("no connection");
    return await db.transaction((tx) =>
      providers.sync.enqueueRun(tx, connection, {
        source: "backfill",
        scope: "historical",
        kinds: ["workouts", "sleep", "samples", "daily"],
        start: window.start,
        end: window.end,
        message: `historical sync of ${DAYS} days`,
      }),
    );
  } finally {
    await providers.close();
  }
}

/** What a sync wrote for one user, comparable across users (ids replaced by identities). */
async function userSnapshot(db: Queryable, userId: string) {
  const samples = await db.query(
    `SELECT d.provider, d.device_model, d.source, s.series_type, s.recorded_at, s.value, s.zone_offset, s.is_daily_total
     FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key WHERE d.user_id = $1
     ORDER BY 2 NULLS FIRST, 3 NULLS FIRST, 4, 5`,
    [userId],
  );
  const events = await db.query(
    `SELECT e.category, e.type, e.external_id, e.source_name, e.start_datetime, e.end_datetime, e.zone_offset,
       e.duration_seconds, d.provider, d.device_model, to_jsonb(w) - 'event_id' AS workout, to_jsonb(z) - 'event_id' AS sleep
     FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
     LEFT JOIN wearables.workout_details w ON w.event_id = e.id LEFT JOIN wearables.sleep_details z ON z.event_id = e.id
     WHERE e.user_id = $1 ORDER BY e.category, e.start_datetime, e.end_datetime`,
    [userId],
  );
  const sources = await db.query(
    `SELECT provider, device_model, software_version, source, device_type, original_source_name
     FROM wearables.data_sources WHERE user_id = $1 ORDER BY 2 NULLS FIRST, 4 NULLS FIRST`,
    [userId],
  );
  const nights = await db.query(
    `SELECT payload->>'night' AS night, count(*)::int AS jobs FROM platform.jobs
     WHERE queue = 'wearables.scores' AND payload->>'userId' = $1::text GROUP BY 1 ORDER BY 1`,
    [userId],
  );
  return { samples, events, sources, nights };
}

/** How many pages a run committed (one `processing` event each, in the page's transaction). */
async function pagesOf(db: Queryable, runId: string) {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM wearables.sync_events WHERE run_id = $1 AND stage = 'processing'",
    [runId],
  );
  return row?.n ?? 0;
}

/** When to kill a child: `delayMs` after its `afterPages`-th committed page (0: after it took the job). */
interface KillAt {
  afterPages: number;
  delayMs: number;
}

function spawnChild(runId: string) {
  const childConfig: SyncChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    sandboxOrigin: cloud.origin,
    runId,
  };
  let killAt: KillAt | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pagesIn = (out: string) => [...out.matchAll(/^PAGE /gm)].length;
  const child = children.spawn({
    script: CHILD,
    env: { SYNC_CHILD_CONFIG: JSON.stringify(childConfig) },
    onStdout(out) {
      if (!killAt || timer || !out.includes("RUN ") || pagesIn(out) < killAt.afterPages) return;
      timer = setTimeout(() => child.kill(), killAt.delayMs);
    },
  });
  return {
    child,
    /** Runs the child (killed at `kill`, if given) until it ends. */
    async go(kill?: KillAt): Promise<{ end: KillTestChildEnd; pages: number; out: string }> {
      killAt = kill;
      const end = await child.go(60_000);
      clearTimeout(timer);
      const pages = pagesIn(child.out);
      if (end === "SIGKILL" && kill) return { end, pages, out: child.out };
      if (end === 0 && child.out.includes("DONE")) return { end, pages, out: child.out };
      throw new Error(`child ended (${String(end)}):\n${child.out}\n${child.err}`);
    },
  };
}

it("a sync SIGKILLed at random instants resumes to exactly the data of an uninterrupted sync", async () => {
  const { seed, next: random } = replayableRandom();
  console.log(`sync kill test: KILL_TEST_SEED=${seed}`);
  const end = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
  const window = { start: end - DAYS * DAY, end };

  // The reference: the same window synced without interruption for another user of the same vendor account.
  let db = await database.open();
  const reference = await connectedUser(db, "reference@example.com");
  const refRun = await queueRun(db, reference.connectionId, window);
  const providers = providersOn(db);
  const refStarted = performance.now();
  try {
    await drainQueue(db, logger, SYNC_QUEUE, providers.queues[SYNC_QUEUE] as never, { timeoutMs: 60_000 });
  } finally {
    await providers.close();
  }
  const refMs = performance.now() - refStarted;
  const expected = await userSnapshot(db, reference.userId);
  const expectedRun = (await db.query<SyncRunRow>("SELECT * FROM wearables.sync_runs WHERE id = $1", [refRun.id]))[0];
  const refPages = await pagesOf(db, refRun.id);
  expect(expectedRun).toMatchObject({ stage: "completed", status: "success" });
  expect(refPages).toBeGreaterThan(20);
  expect(expected.samples.length).toBeGreaterThan(1_000);
  expect(expected.events.filter((e) => e.category === "workout").length).toBeGreaterThan(10);
  expect(expected.events.filter((e) => e.category === "sleep").length).toBeGreaterThan(30);

  const user = await connectedUser(db, "killed@example.com");
  const run = await queueRun(db, user.connectionId, window);
  await database.close(db);

  // Children in turn, each killed at a random instant after it took the job (the next one loads meanwhile),
  // until one is left alone to finish the run.
  const started = performance.now();
  const ends: { end: KillTestChildEnd; pages: number; kill?: KillAt }[] = [];
  let next = spawnChild(run.id);
  const report = () =>
    console.log(
      `sync kill test: ${refPages} pages; reference ${Math.round(refMs)} ms; ` +
        `${ends.filter((e) => e.end === "SIGKILL").length} kills after ` +
        `[${ends.map((e) => (e.kill ? `${e.kill.afterPages}p+${e.kill.delayMs}ms` : "-")).join(", ")}], ` +
        `pages committed per child [${ends.map((e) => e.pages).join(", ")}]; ` +
        `killed run ${Math.round(performance.now() - started)} ms`,
    );
  try {
    for (;;) {
      const current = next;
      next = spawnChild(run.id);
      const kill =
        ends.length < MAX_KILLS
          ? { afterPages: Math.floor(random() * 5), delayMs: Math.floor(random() * 60) }
          : undefined;
      const result = await current.go(kill);
      if (process.env.SYNC_KILL_TEST_VERBOSE) console.log(`child (kill ${JSON.stringify(kill)}):\n${result.out}`);
      ends.push({ end: result.end, pages: result.pages, kill });
      if (result.out.includes("DONE")) break;
    }
  } finally {
    next.child.kill();
    report();
  }
  const kills = ends.filter((e) => e.end === "SIGKILL").length;
  expect(kills).toBeGreaterThanOrEqual(1);

  db = await database.open();
  try {
    const rows = await db.query<SyncRunRow & { last_synced_at: Date | null }>(
      `SELECT r.*, c.last_synced_at FROM wearables.sync_runs r JOIN wearables.user_connections c ON c.id = r.connection_id
       WHERE r.user_id = $1`,
      [user.userId],
    );
    expect(rows).toHaveLength(1);
    const done = rows[0] as (typeof rows)[number];
    expect(done).toMatchObject({
      id: run.id,
      stage: "completed",
      status: "success",
      kind_index: 4,
      cursor: null,
      items_processed: expectedRun?.items_processed,
      items_inserted: expectedRun?.items_inserted,
    });
    expect(done.ended_at).not.toBeNull();
    expect(done.last_synced_at).not.toBeNull();
    // Every page committed exactly once: as many page events as the uninterrupted run's.
    expect(await pagesOf(db, run.id)).toBe(refPages);
    const [span] = await db.query<{ synced_from: Date; synced_until: Date; status: string }>(
      "SELECT synced_from, synced_until, status FROM wearables.user_connections WHERE id = $1",
      [user.connectionId],
    );
    expect(span).toEqual({ synced_from: new Date(window.start), synced_until: new Date(window.end), status: "active" });

    // Exactly the reference's data: nothing lost, nothing twice, the same values.
    const got = await userSnapshot(db, user.userId);
    expect(got.samples.length).toBe(expected.samples.length);
    expect(got.events.length).toBe(expected.events.length);
    expect(got).toEqual(expected);
    const [dupes] = await db.query<{ events: number; external: number }>(
      "SELECT count(*)::int AS events, count(DISTINCT (category, external_id))::int AS external FROM wearables.events WHERE user_id = $1",
      [user.userId],
    );
    expect(dupes?.events).toBe(dupes?.external);

    // The run's job (and any job it continued in) ended completed; the killed claims count as attempts.
    const jobs = (await listJobs(db, { queue: SYNC_QUEUE })).filter(
      (j) => (j.payload as { runId?: string }).runId === run.id,
    );
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    expect(jobs.every((j) => j.state === "completed")).toBe(true);
  } finally {
    await database.close(db);
  }
}, 240_000);
