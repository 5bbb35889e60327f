/**
 * Plumbing of the kill tests, whose code under test runs in a child process that is SIGKILLed mid-work and
 * restarted on the same database: that database, which must outlive the killed process
 * (`createKillTestDatabase`), the children (`killTestChildren`) and the child's side of their start
 * (`startKillTestChild`).
 *
 * A child loads its modules at once (seconds) but opens the database only when the test says go (a line on
 * its stdin), so the test can load the next child while the current one runs: a PGlite folder has one
 * user at a time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabase, type Database } from "../db/database.ts";
import { type Migration, migrate } from "../db/migrate.ts";
import { createTestDatabase } from "../db/testDatabase.ts";

/** Where a child finds the shared database: PostgreSQL at `url` when it is set, else the PGlite folder `dataDir`. */
export interface KillTestDatabaseLocation {
  url?: string | undefined;
  dataDir: string;
}

export interface KillTestDatabase extends KillTestDatabaseLocation {
  url: string | undefined;
  /**
   * A connection to the database. PGlite: a new one, to `close` before a child runs (one user at a time);
   * PostgreSQL: the test's pool, shared by every `open`.
   */
  open(): Promise<Database>;
  /** Closes what `open` returned (PGlite); the PostgreSQL pool stays open until `drop`. */
  close(db: Database): Promise<void>;
  /** Drops the PostgreSQL database, or removes the PGlite folder. */
  drop(): Promise<void>;
}

export interface CreateKillTestDatabaseParameters {
  /** Names the temporary folders (`<name>-kill-…`) and the per-machine template. */
  name: string;
  /** Applied before the test starts (kernel migrations included by the caller). */
  migrations: Migration[];
}

/**
 * A migrated database for a kill test: a new PostgreSQL database when TEST_DATABASE_URL is set, else a
 * PGlite folder of its own. A fresh PGlite folder takes seconds to initialise, so a migrated one is made
 * once per machine (cached in the OS temp dir, keyed by the migrations) and copied.
 *
 * @example
 * const database = await createKillTestDatabase({ name: "relayer", migrations });
 * const config = { url: database.url, dataDir: database.dataDir }; // for the child
 * const db = await database.open(); … await database.close(db);
 */
export async function createKillTestDatabase({
  name,
  migrations,
}: CreateKillTestDatabaseParameters): Promise<KillTestDatabase> {
  if (process.env.TEST_DATABASE_URL) {
    const pg = await createTestDatabase();
    try {
      await migrate(pg.db, migrations);
    } catch (error) {
      await pg.drop();
      throw error;
    }
    return {
      url: pg.url,
      dataDir: "memory", // unused: the URL wins
      open: () => Promise.resolve(pg.db),
      close: () => Promise.resolve(),
      drop: () => pg.drop(),
    };
  }
  const dataDir = await migratedPgliteFolder(name, migrations);
  return {
    url: undefined,
    dataDir,
    open: () => createDatabase({ dataDir }),
    close: (db) => db.close(),
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A migrated PGlite folder of our own, copied from the per-machine template (made first if missing). */
async function migratedPgliteFolder(name: string, migrations: Migration[]): Promise<string> {
  // The kernel's package.json pins PGlite, whose version decides the folder's format.
  const key = createHash("sha256")
    .update(readFileSync(new URL("../../package.json", import.meta.url)))
    .update(JSON.stringify(migrations.map((m) => [m.service, m.id, m.sql])))
    .digest("hex")
    .slice(0, 16);
  const template = join(tmpdir(), `${name}-kill-pglite-${key}`);
  if (!existsSync(join(template, "READY"))) {
    const staging = mkdtempSync(join(tmpdir(), `${name}-kill-pglite-staging-`));
    const db = await createDatabase({ dataDir: staging });
    await migrate(db, migrations);
    await db.close();
    writeFileSync(join(staging, "READY"), "");
    try {
      renameSync(staging, template);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another run made it first
    }
  }
  const dir = mkdtempSync(join(tmpdir(), `${name}-kill-`));
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** How a child ended: its signal (`"SIGKILL"`), its exit code, or `"timeout"` (it was SIGKILLed then). */
export type KillTestChildEnd = NodeJS.Signals | number | null | "timeout";

export interface SpawnKillTestChildParameters {
  /** The child's script, e.g. `new URL("./killChild.ts", import.meta.url)`, run with `node --import tsx`. */
  script: URL;
  /** Added to the test's environment (the child's config, e.g. `{ RELAYER_CHILD_CONFIG: JSON.stringify(…) }`). */
  env: Record<string, string>;
  /** Called with everything the child printed so far on each chunk of its stdout (to watch for its lines). */
  onStdout?: (out: string) => void;
}

export interface KillTestChild {
  /** Everything the child printed so far on stdout, and on stderr (for failure messages). */
  readonly out: string;
  readonly err: string;
  /** SIGKILLs the child (if it still runs). */
  kill(): void;
  /** Lets the child open the database and run; resolves with how it ended, at the latest after `timeoutMs`. */
  go(timeoutMs: number): Promise<KillTestChildEnd>;
}

export interface KillTestChildren {
  spawn(parameters: SpawnKillTestChildParameters): KillTestChild;
  /** SIGKILLs every child still running (in `afterAll`, if a failed test left one). */
  killAll(): void;
}

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * The children of one kill test file. Each child loads its modules as soon as it is spawned and waits for
 * `go`; the test kills it (`kill`, from `onStdout` or a timer) or it kills itself.
 */
export function killTestChildren(): KillTestChildren {
  const children: ChildProcess[] = [];
  return {
    spawn({ script, env, onStdout }) {
      const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(script)], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      children.push(child);
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        onStdout?.(out);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
      });
      const exited = new Promise<KillTestChildEnd>((resolve) => {
        child.on("exit", (code, signal) => resolve(signal ?? code));
      });
      const kill = () => {
        if (running(child)) child.kill("SIGKILL");
      };
      return {
        get out() {
          return out;
        },
        get err() {
          return err;
        },
        kill,
        async go(timeoutMs) {
          child.stdin.write("go\n");
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<"timeout">((resolve) => {
            timer = setTimeout(() => resolve("timeout"), timeoutMs);
          });
          const end = await Promise.race([exited, timeout]);
          clearTimeout(timer);
          if (end === "timeout") kill();
          return end;
        },
      };
    },
    killAll() {
      for (const child of children) if (running(child)) child.kill("SIGKILL");
    },
  };
}

/**
 * The child's side of its start: reads its config (JSON in the environment variable `variable`, set by
 * the test), prints LOADED, waits for the test's go line on stdin, then opens the shared database.
 * Called at the top level of the child's script, after its imports: its modules are loaded by then.
 */
export async function startKillTestChild<C extends KillTestDatabaseLocation>(
  variable: string,
): Promise<{ config: C; db: Database }> {
  const config = JSON.parse(process.env[variable] ?? "null") as C | null;
  if (!config) throw new Error(`${variable} is not set`);
  process.stdout.write("LOADED\n");
  await once(process.stdin, "data");
  const db = await createDatabase({ url: config.url, dataDir: config.dataDir });
  return { config, db };
}
