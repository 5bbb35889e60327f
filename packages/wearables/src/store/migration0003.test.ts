/**
 * Migration 0003 (imports and scores onto the kernel's job layer) on a database that has work in flight: the
 * nights of `score_work` become queued scores jobs, unfinished imports become import jobs, the recurring pass
 * and its queued occurrence go, and so do `score_work` and the import records' claim columns.
 */
import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wearablesService } from "../index.ts";

let database: TestDatabase;
const USER = "7d3c1a52-0b4e-4f7a-9c1d-2e3f4a5b6c7d";
const IMPORTS = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it("moves queued nights and unfinished imports onto platform.jobs and drops the old coordination", async () => {
  const { db } = database;
  const migrations = wearablesService.migrations;
  const before = migrations.filter((m) => m.id < "0003");
  expect(migrations.map((m) => m.id).some((id) => id.startsWith("0003"))).toBe(true);
  await migrate(db, [...kernelMigrations(), ...before]);
  await db.query("INSERT INTO wearables.users (id) VALUES ($1)", [USER]);
  await db.query("INSERT INTO wearables.score_work (user_id, night) VALUES ($1, '2026-03-02'), ($1, '2026-03-01')", [
    USER,
  ]);
  await db.query(
    `INSERT INTO wearables.import_jobs (id, user_id, kind, state, file_path) VALUES
       ($1, $3, 'gpx', 'processing', '/data/wearables/imports/a'), ($2, $3, 'fit', 'completed', '/x')`,
    [...IMPORTS, USER],
  );
  await db.query(
    `INSERT INTO platform.job_schedules (name, queue, every_ms, next_run_at) VALUES ('wearables.scores', 'wearables.scores', 5000, now())`,
  );
  await db.query(
    `INSERT INTO platform.jobs (queue, schedule, singleton_key) VALUES ('wearables.scores', 'wearables.scores', 'wearables.scores')`,
  );

  await migrate(db, [...kernelMigrations(), ...migrations]);

  const jobs = await db.query<{ queue: string; payload: unknown; singleton_key: string; state: string }>(
    "SELECT queue, payload, singleton_key, state FROM platform.jobs ORDER BY id",
  );
  expect(jobs).toEqual([
    { queue: "wearables.import", payload: { importId: IMPORTS[0] }, singleton_key: IMPORTS[0], state: "queued" },
    {
      queue: "wearables.scores",
      payload: { userId: USER, night: "2026-03-01" },
      singleton_key: `${USER}:2026-03-01`,
      state: "queued",
    },
    {
      queue: "wearables.scores",
      payload: { userId: USER, night: "2026-03-02" },
      singleton_key: `${USER}:2026-03-02`,
      state: "queued",
    },
  ]);
  expect(await db.query("SELECT name FROM platform.job_schedules")).toEqual([]);
  expect(await db.query("SELECT to_regclass('wearables.score_work') AS t")).toEqual([{ t: null }]);
  const columns = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = 'wearables' AND table_name = 'import_jobs' ORDER BY ordinal_position`,
  );
  expect(columns.map((c) => c.column_name)).toEqual([
    "id",
    "user_id",
    "kind",
    "state",
    "file_path",
    "file_name",
    "file_bytes",
    "bytes_read",
    "items_processed",
    "samples_written",
    "events_written",
    "checkpoint",
    "errors",
    "created_at",
    "started_at",
    "finished_at",
    "updated_at",
  ]);
  // The old import keeps its local path (read there by the instance that has the file).
  const [old] = await db.query<{ file_path: string }>("SELECT file_path FROM wearables.import_jobs WHERE id = $1", [
    IMPORTS[0],
  ]);
  expect(old?.file_path).toBe("/data/wearables/imports/a");
});
