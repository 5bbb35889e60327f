/**
 * A fresh database with the platform's and the brokerage's migrations applied, for the brokerage's store and
 * service tests (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 */
import { kernelMigrations, loadMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";

export const brokerageMigrations = () =>
  loadMigrations("brokerage", new URL("../../migrations", import.meta.url).pathname);

export async function createBrokerageTestDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  await migrate(database.db, [...kernelMigrations(), ...brokerageMigrations()]);
  return database;
}
