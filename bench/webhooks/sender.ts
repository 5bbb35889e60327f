/**
 * One side of the webhooks benchmark, in its own process (on PGlite the database runs in it too):
 * `tsx sender.ts <receiver origin>`, then one JSON line on stdout. Modes (`BENCH_MODE`):
 * - `service`: a fresh `bench_webhooks` database (`BENCH_DRIVER`), migrated, with `BENCH_ENDPOINTS` endpoints
 *   registered through the endpoints service (`<origin>/e/<i>`, over the origins given); the webhooks module built from the config
 *   defaults (`loadConfig` with no environment: 32 attempts in flight, 4 per endpoint, 30 s timeout) and a kernel
 *   job worker serving its delivery queue with its defaults, as `platform start` runs it; then `BENCH_MESSAGES`
 *   messages, each `outbox.emit` in its own transaction (one message, a delivery and a job per endpoint), one
 *   every `BENCH_PACE_MS` (0: as fast as they commit). Prints each message's commit time and waits until every
 *   delivery succeeded.
 * - `baseline`: no database: the same bodies POSTed to the same receiver paths by a bare loop of
 *   `BENCH_CONCURRENCY` requests in flight (node:http, a keep-alive agent), messages made available on the same
 *   pace (their "commit" is when the loop may send them).
 * - `import`: a fresh `bench_webhooks_import` database with one user and, when `BENCH_WITH_ENDPOINT=1`, one
 *   endpoint that wants every event (no delivery worker: only the outbox's writes are measured); the Apple
 *   Health export `<origin>` (a file path here) imported through the service's import job on a kernel worker.
 */
import { randomUUID } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJobWorker, createLogger, kernelMigrations, loadConfig, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import { createImportQueue, enqueueImport, IMPORT_QUEUE } from "../../packages/wearables/src/imports/importJobs.ts";
import { createImportJobsRepository } from "../../packages/wearables/src/store/importJobsRepository.ts";
import type { WebhookEvent } from "../../packages/wearables/src/webhooks/webhookEvents.ts";
import { createWebhooksModule } from "../../packages/wearables/src/webhooks/webhooksModule.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";

const mode = (process.env.BENCH_MODE ?? "service") as "service" | "baseline" | "import";
const target = process.argv[2] as string;
/** The receivers' origins (comma-separated): endpoint `i` is `<origins[i % length]>/e/<i>`. */
const origins = target.split(",");
const endpointUrl = (i: number) => `${origins[i % origins.length]}/e/${i}`;
const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const endpoints = Number(process.env.BENCH_ENDPOINTS ?? 100);
const messages = Number(process.env.BENCH_MESSAGES ?? 200);
const paceMs = Number(process.env.BENCH_PACE_MS ?? 0);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
/** The secret keys' folder (the development key lives there), the same for every run. */
const dataDir = join(tmpdir(), "platform-bench-webhooks-data");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A message about the size of a workout.created event; `n` lets the receiver find its commit time. */
export function benchEvent(n: number): WebhookEvent {
  return {
    type: "workout.created",
    eventId: `bench.${n}.${randomUUID()}`,
    userId: null,
    data: {
      n,
      id: randomUUID(),
      user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
      type: "running",
      start_time: "2026-05-01T06:00:00.000Z",
      end_time: "2026-05-01T06:50:00.000Z",
      zone_offset: "+02:00",
      duration_seconds: 3000,
      calories_kcal: 700,
      distance_meters: 10000,
      avg_heart_rate_bpm: 151,
      max_heart_rate_bpm: 178,
      elevation_gain_meters: 84,
      avg_pace_sec_per_km: 300,
      source: { provider: "garmin", device: "Forerunner 255" },
    },
  };
}

async function freshDatabase(name: string) {
  const bench = benchDatabase(name);
  if (driver === "postgres") {
    if (!(await bench.preparePostgres({ fresh: true }))) throw new Error("no PostgreSQL server answers");
  } else rmSync(bench.pgliteDir, { recursive: true, force: true });
  const db = await bench.open(driver);
  await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
  return db;
}

const config = loadConfig({
  env: {},
  overrides: { dataDir, wearablesWebhookAllowedNetworks: ["127.0.0.0/8"] },
});
const logger = createLogger({ level: "warn" });
let out: Record<string, unknown>;

if (mode === "service") {
  const db = await freshDatabase("webhooks");
  const webhooks = createWebhooksModule({ config, db, logger });
  for (let i = 0; i < endpoints; i++)
    await webhooks.service.create({ url: endpointUrl(i), description: null, filter_types: null, user_id: null });
  const worker = createJobWorker({ db, logger, queues: webhooks.queues });
  await worker.start();
  const commitAt: number[] = [];
  const started = Date.now();
  for (let n = 0; n < messages; n++) {
    const due = started + n * paceMs;
    if (paceMs > 0 && Date.now() < due) await sleep(due - Date.now());
    await db.transaction((tx) => webhooks.outbox.emit(tx, [benchEvent(n)]));
    commitAt[n] = Date.now();
  }
  const writeSeconds = (Date.now() - started) / 1000;
  const total = endpoints * messages;
  for (;;) {
    const [row] = await db.query<{ done: number; failed: number }>(
      "SELECT count(*) FILTER (WHERE status = 'success')::int AS done, count(*) FILTER (WHERE status <> 'success' AND attempts > 0)::int AS failed FROM wearables.webhook_deliveries",
    );
    if ((row?.done ?? 0) >= total) break;
    await sleep(100);
  }
  const [attempts] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM wearables.webhook_attempts");
  await worker.stop();
  webhooks.close();
  await db.close();
  out = { commitAt, writeSeconds, attempts: attempts?.n };
} else if (mode === "baseline") {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const commitAt: number[] = [];
  const queue: { n: number; url: URL; body: string }[] = [];
  const urls = Array.from({ length: endpoints }, (_, i) => new URL(endpointUrl(i)));
  const started = Date.now();
  let made = 0;
  let wakeUp: (() => void) | undefined;
  const post = (url: URL, body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  // The producer: messages become available on the pace (all at once when 0).
  const producer = (async () => {
    for (let n = 0; n < messages; n++) {
      const due = started + n * paceMs;
      if (paceMs > 0 && Date.now() < due) await sleep(due - Date.now());
      const e = benchEvent(n);
      const body = JSON.stringify({ type: e.type, data: e.data });
      for (let i = 0; i < endpoints; i++) queue.push({ n, url: urls[i] as URL, body });
      commitAt[n] = Date.now();
      made++;
      wakeUp?.();
    }
  })();
  const loop = async () => {
    for (;;) {
      const next = queue.shift();
      if (next) {
        await post(next.url, next.body);
        continue;
      }
      if (made >= messages) return;
      await new Promise<void>((r) => {
        const prev = wakeUp;
        wakeUp = () => {
          wakeUp = undefined;
          prev?.();
          r();
        };
      });
    }
  };
  await Promise.all([producer, ...Array.from({ length: concurrency }, loop)]);
  agent.destroy();
  out = { commitAt, writeSeconds: (Date.now() - started) / 1000 };
} else {
  const file = target;
  const db = await freshDatabase("webhooks_import");
  const webhooks = createWebhooksModule({ config, db, logger });
  const [user] = await db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('demo@bench.test') RETURNING id",
  );
  const userId = user?.id as string;
  if (process.env.BENCH_WITH_ENDPOINT === "1")
    await webhooks.service.create({
      url: "http://127.0.0.1:9/hooks",
      description: null,
      filter_types: null,
      user_id: null,
    });
  const jobs = createImportJobsRepository(db);
  const id = randomUUID();
  await db.transaction(async (tx) => {
    await jobs.create(tx, { id, userId, kind: "apple_xml", fileName: "export.xml", fileBytes: statSync(file).size });
    await tx.query("UPDATE wearables.import_jobs SET file_path = $2 WHERE id = $1", [id, file]);
    await enqueueImport(tx, id);
  });
  const started = performance.now();
  const imports = createImportQueue({
    db,
    logger,
    outbox: webhooks.outbox,
    sliceMs: 86_400_000,
    timeoutMs: 86_400_000,
  });
  const worker = createJobWorker({ db, logger, queues: { [IMPORT_QUEUE]: imports.queue } });
  await worker.start();
  const finished = async () => ["completed", "failed"].includes((await jobs.get(id))?.state ?? "");
  while (!(await finished())) await sleep(50);
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const done = await jobs.get(id);
  if (done?.state !== "completed") throw new Error(`import ${done?.state}: ${JSON.stringify(done?.errors)}`);
  const [m] = await db.query<{ n: number; bytes: number; deliveries: number }>(
    `SELECT count(*)::int AS n, coalesce(sum(length(payload::text)), 0)::bigint AS bytes,
            (SELECT count(*)::int FROM wearables.webhook_deliveries) AS deliveries
       FROM wearables.webhook_messages`,
  );
  webhooks.close();
  await db.close();
  const samples = Number(done.samples_written);
  out = {
    samples,
    seconds: Math.round(seconds * 100) / 100,
    samplesPerSec: Math.round(samples / seconds),
    messages: m?.n ?? 0,
    payloadMiB: Math.round(Number(m?.bytes ?? 0) / 104857.6) / 10,
    deliveries: m?.deliveries ?? 0,
  };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
