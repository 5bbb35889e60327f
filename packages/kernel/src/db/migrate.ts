/**
 * Ordered, committed SQL migrations. Each service owns one PostgreSQL schema and a folder of
 * `NNNN_name.sql` files; `migrate` applies the missing ones in order, each in its own transaction,
 * under an advisory lock so several instances starting together apply each file once.
 * A landed migration is never edited: a changed checksum stops start-up.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./database.ts";

export interface Migration {
  service: string;
  id: string;
  sql: string;
}

/** Reads `dir/*.sql` in name order. */
export function loadMigrations(service: string, dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((file) => ({ service, id: file.replace(/\.sql$/, ""), sql: readFileSync(join(dir, file), "utf8") }));
}

const checksum = (sql: string) => createHash("sha256").update(sql).digest("hex");
// Any fixed number: the key of the lock every instance takes while migrating.
const MIGRATION_LOCK = 7_240_211;

export interface MigrateResult {
  applied: string[];
}

export async function migrate(db: Database, migrations: Migration[]): Promise<MigrateResult> {
  const applied: string[] = [];
  // Under the lock too: `IF NOT EXISTS` is no guard against a concurrent creator (PostgreSQL checks the catalog
  // before inserting into it), so instances starting together on a fresh database failed on
  // pg_namespace_nspname_index.
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec(`
      CREATE SCHEMA IF NOT EXISTS platform;
      CREATE TABLE IF NOT EXISTS platform.migrations (
        service text NOT NULL,
        id text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (service, id)
      );`);
  });
  for (const migration of migrations) {
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      const [row] = await tx.query<{ checksum: string }>(
        "SELECT checksum FROM platform.migrations WHERE service = $1 AND id = $2",
        [migration.service, migration.id],
      );
      const sum = checksum(migration.sql);
      if (row) {
        if (row.checksum !== sum) {
          throw new Error(
            `Migration ${migration.service}/${migration.id} was changed after it was applied; add a new migration instead`,
          );
        }
        return;
      }
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO platform.migrations (service, id, checksum) VALUES ($1, $2, $3)", [
        migration.service,
        migration.id,
        sum,
      ]);
      applied.push(`${migration.service}/${migration.id}`);
    });
  }
  return { applied };
}
