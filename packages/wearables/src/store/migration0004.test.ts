/**
 * Migration 0004 (the anchor's 0.9 provider names): stored `google` rows (data sources, health scores,
 * connections) become `google_health`, nothing else changes.
 */
import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wearablesService } from "../index.ts";

let database: TestDatabase;
const USER = "7d3c1a52-0b4e-4f7a-9c1d-2e3f4a5b6c7d";

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it("renames the stored provider `google` to `google_health`", async () => {
  const { db } = database;
  const migrations = wearablesService.migrations;
  expect(migrations.map((m) => m.id)).toContain("0004_provider_names_0_9");
  await migrate(db, [...kernelMigrations(), ...migrations.filter((m) => m.id < "0004")]);
  await db.query("INSERT INTO wearables.users (id) VALUES ($1)", [USER]);
  await db.query(
    `INSERT INTO wearables.data_sources (user_id, provider, device_model) VALUES ($1, 'google', 'Pixel Watch 3'),
       ($1, 'garmin', 'Forerunner 255')`,
    [USER],
  );
  await db.query(
    `INSERT INTO wearables.health_scores (user_id, provider, category, value, recorded_at)
     VALUES ($1, 'google', 'sleep', 80, '2026-05-01T05:00:00Z'), ($1, 'internal', 'sleep', 70, '2026-05-01T05:00:00Z')`,
    [USER],
  );
  await db.query("INSERT INTO wearables.user_connections (user_id, provider, status) VALUES ($1, 'google', 'active')", [
    USER,
  ]);
  await migrate(db, [...kernelMigrations(), ...migrations]);
  const providers = async (table: string) =>
    (await db.query<{ provider: string }>(`SELECT provider FROM wearables.${table} ORDER BY provider`)).map(
      (r) => r.provider,
    );
  expect(await providers("data_sources")).toEqual(["garmin", "google_health"]);
  expect(await providers("health_scores")).toEqual(["google_health", "internal"]);
  expect(await providers("user_connections")).toEqual(["google_health"]);
});
