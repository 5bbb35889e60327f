/**
 * Shared by the job layer's tests: a migrated test database, a silent logger, and a wait for a condition
 * (never a sleep against the clock).
 */

import { migrate } from "../db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../db/testDatabase.ts";
import { kernelMigrations } from "../kernelMigrations.ts";
import { createLogger } from "../log/logger.ts";

export const silentLogger = createLogger({ level: "silent" });

export async function createJobsTestDatabase(): Promise<TestDatabase> {
  const t = await createTestDatabase();
  await migrate(t.db, kernelMigrations());
  return t;
}

/** Resolves once `condition()` is true (checked every 20 ms), or fails after `timeoutMs` naming `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
