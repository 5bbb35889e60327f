/**
 * The wearables health data as a newcomer gets it: `platform wearables demo-data` (no platform running: the
 * command runs the import itself), then `platform start`, where every data family answers with the demo
 * person's data; and `platform wearables import` of a GPX workout while the platform runs (the job is queued
 * through the admin socket and run by the platform's job worker), followed to completion; `platform jobs`
 * lists the scores passes the platform ran on kernel's job layer.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeGpxFile } from "../packages/wearables/src/testing/gpxFile.ts";
import { makeWorkoutFixture } from "../packages/wearables/src/testing/workoutFixture.ts";
import {
  type CommandResult,
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

let env: Record<string, string>;
let removeEnv: () => Promise<void>;
let platform: PlatformProcess | undefined;

beforeAll(async () => {
  ({ env, remove: removeEnv } = await createPlatformEnv("wearables", {
    SERVICES: "wearables",
    ...EPHEMERAL_PORTS,
    DEVNET: "false",
    LOG_LEVEL: "warn",
  }));
});
afterAll(async () => {
  await platform?.stop();
  await removeEnv();
});

function json<T>(result: CommandResult): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

interface ImportJob {
  task_id: string;
  state: string;
  samples_written: number;
  events_written: number;
}

describe("platform wearables", () => {
  let key: string;
  let userId: string;
  const api = async (path: string) => {
    const res = await fetch(`${platform?.baseUrls.wearables}${path}`, { headers: { "X-Service-API-Key": key } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown> & { data: unknown[]; items: unknown[] };
  };

  it("demo-data imports days of a person's data through the import path", async () => {
    const job = json<ImportJob>(await runPlatform(["wearables", "demo-data", "--days", "4", "--json"], env));
    expect(job.state).toBe("completed");
    expect(job.samples_written).toBeGreaterThan(1_000);
    expect(job.events_written).toBeGreaterThanOrEqual(4); // a night a day, and workouts
  }, 120_000);

  it("every data family answers with that data once the platform runs", async () => {
    key = json<{ key: string }>(await runPlatform(["keys", "create", "--service", "wearables", "--json"], env)).key;
    platform = await startPlatformProcess(env);
    const users = await api("/users?email=demo@example.com");
    userId = (users.items[0] as { id: string }).id;
    const until = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    expect((await api(`/users/${userId}/data-sources`)).items.length).toBeGreaterThan(0);
    const hr = await api(`/users/${userId}/timeseries?start_time=${from}&end_time=${until}&types=heart_rate&limit=5`);
    expect(hr.data).toHaveLength(5);
    const hourly = await api(
      `/users/${userId}/timeseries?start_time=${from}&end_time=${until}&types=steps&resolution=1hour&limit=100`,
    );
    expect(hourly.data.length).toBeGreaterThan(0);
    expect(
      (await api(`/users/${userId}/events/sleep?start_date=${from}&end_date=${until}`)).data.length,
    ).toBeGreaterThan(0);
    expect(
      (await api(`/users/${userId}/events/workouts?start_date=${from}&end_date=${until}`)).data.length,
    ).toBeGreaterThan(0);
    const activity = await api(`/users/${userId}/summaries/activity?start_date=${from}&end_date=${until}`);
    expect((activity.data[0] as { steps: number }).steps).toBeGreaterThan(1_000);
    const sleep = await api(`/users/${userId}/summaries/sleep?start_date=${from}&end_date=${until}`);
    expect((sleep.data[0] as { duration_minutes: number }).duration_minutes).toBeGreaterThan(240);
    const data = await api(`/users/${userId}/summaries/data`);
    expect(data.total_data_points).toBeGreaterThan(1_000);
    // The platform's scores job scores the imported nights (provider `internal`).
    await vi.waitFor(
      async () => {
        const scores = await api(`/users/${userId}/health-scores?category=sleep&provider=internal`);
        expect(scores.data.length).toBeGreaterThan(0);
      },
      { timeout: 60_000, interval: 500 },
    );
  }, 120_000);

  it("imports a GPX workout while the platform runs, through its job worker", async () => {
    const file = join(env.DATA_DIR as string, "ride.gpx");
    writeFileSync(file, writeGpxFile(makeWorkoutFixture({})));
    const job = json<ImportJob>(await runPlatform(["wearables", "import", userId, file, "--json"], env));
    expect(job).toMatchObject({ state: "completed", events_written: 1 });
    expect(job.samples_written).toBeGreaterThan(10);
  }, 120_000);

  it("platform jobs lists the scores passes the platform ran (through its admin socket on PGlite), and refuses to cancel a completed one", async () => {
    const runs = json<{ id: string; queue: string; state: string }[]>(
      await runPlatform(["jobs", "list", "--queue", "wearables.scores", "--state", "completed", "--json"], env),
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(runs[0]).toMatchObject({ queue: "wearables.scores", state: "completed" });
    expect(Array.isArray(json<unknown[]>(await runPlatform(["jobs", "leases", "--json"], env)))).toBe(true);
    const refused = await runPlatform(["jobs", "cancel", runs[0]?.id as string], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is completed: it cannot be cancelled/);
  }, 120_000);
});
