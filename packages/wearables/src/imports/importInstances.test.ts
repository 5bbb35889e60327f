/**
 * Imports across instances: an upload received by an API instance (its HTTP server, no jobs) is imported by
 * the job worker of another instance of the service on the same database. The upload travels in the
 * database (`wearables.import_files`), never through a folder of the receiving instance.
 */
import type { BackgroundJob, ServiceInstance } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { appleExportXml } from "../testing/appleExport.ts";
import { waitFor } from "../testing/jobWorkers.ts";

let api: TestService;
let worker: ServiceInstance;
let jobs: BackgroundJob | undefined;

beforeAll(async () => {
  // Instance 1, role api: serves HTTP, runs no jobs.
  api = await startTestService(wearablesService);
  // Instance 2, role worker: the same service created again on the same database, its jobs started.
  worker = await wearablesService.create(api.context);
});
afterAll(async () => {
  await jobs?.stop();
  await worker?.close?.();
  await api?.close();
});

it("an upload to an API instance is imported by another instance's worker", async () => {
  const [user] = await api.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (first_name) VALUES ('Ada') RETURNING id",
  );
  const userId = (user as { id: string }).id;
  const xml = appleExportXml({ extraHeartRates: 200 });
  const body = new FormData();
  body.append("file", new Blob([xml]), "export.xml");
  const res = await fetch(`${api.url}/api/v1/users/${userId}/import/apple/xml/direct`, {
    method: "POST",
    body,
    headers: { "X-Service-API-Key": api.apiKey },
  });
  expect(res.status).toBe(200);
  const { task_id: taskId } = (await res.json()) as { task_id: string };
  const status = async () =>
    (await (
      await fetch(`${api.url}/api/v1/users/${userId}/imports/${taskId}`, {
        headers: { "X-Service-API-Key": api.apiKey },
      })
    ).json()) as { state: string; samples_written: number; events_written: number; file_bytes: number };

  // Nothing runs it on the API instance: it waits, its file in the database.
  expect((await status()).state).toBe("queued");
  const [stored] = await api.database.db.query<{ bytes: number }>(
    "SELECT sum(length(data))::int AS bytes FROM wearables.import_files WHERE import_id = $1",
    [taskId],
  );
  expect(stored?.bytes).toBe(Buffer.byteLength(xml));

  jobs = await (worker.startJobs as () => Promise<BackgroundJob>)();
  await waitFor("the worker instance to import the upload", async () => (await status()).state === "completed");
  const done = await status();
  expect(done).toMatchObject({ file_bytes: Buffer.byteLength(xml), events_written: 5 });
  const [{ n } = { n: 0 }] = await api.database.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM wearables.samples",
  );
  expect(n).toBe(done.samples_written);
  expect(n).toBeGreaterThan(200);
  // The import's scores jobs were enqueued with its sleep, and the same worker runs them.
  await waitFor("the imported nights' scores", async () => {
    const rows = await api.database.db.query(
      "SELECT 1 FROM wearables.health_scores WHERE user_id = $1 AND provider = 'internal' AND category = 'sleep'",
      [userId],
    );
    return rows.length > 0;
  });
  expect(await api.database.db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
});
