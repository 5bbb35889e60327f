/**
 * `platform wearables import <user_id> <file> [--kind apple|fit|gpx|tcx]`: imports an Apple Health export
 * (export.xml or export.zip) or a FIT/GPX/TCX workout file for a user, with a progress bar (MB read, items,
 * samples and events written). The file is stored in the database with the import and its kernel job (queue
 * `wearables.import`), as an upload is; the file itself is left where it is.
 *
 * While a platform runs on the embedded database it owns the data folder: the import is queued through its
 * admin socket, its job worker does the work and this command follows the import. Otherwise this process runs
 * a job worker of the import queue until the import ends (with PostgreSQL a running platform's worker may take
 * the job instead). Ctrl-C stops following; an import stopped mid-way resumes from its last committed chunk.
 */
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Config } from "@platform/kernel";
import { writeDemoExport } from "@platform/wearables/demo";
import { reachPlatform } from "../admin/platformAccess.ts";
import type { Platform } from "../openPlatform.ts";
import { quiet as quietConfig, runOperatorCommand, withOperatorCommands } from "./operatorCommand.ts";
import { createProgressBar } from "./progress.ts";

const KINDS = ["apple", "fit", "gpx", "tcx"];

/** What `import-status` answers (see wearables' imports/importStatus.ts). */
interface ImportStatus {
  task_id: string;
  kind: string;
  state: "queued" | "processing" | "completed" | "failed";
  file_bytes: number;
  bytes_read: number;
  items_processed: number;
  samples_written: number;
  events_written: number;
  errors: { message: string }[];
}

export async function wearablesImport(
  config: Config,
  userId: string,
  file: string,
  o: { kind?: string; json?: boolean },
): Promise<void> {
  if (o.kind !== undefined && !KINDS.includes(o.kind)) {
    throw new Error(`--kind must be one of ${KINDS.join(", ")} (got "${o.kind}")`);
  }
  const args = { user_id: userId, file: resolve(file), ...(o.kind ? { kind: o.kind } : {}) };
  const access = await reachPlatform(quietConfig(config));
  const final =
    access.through === "admin"
      ? await followRunningPlatform(config, args, o.json)
      : await runHere(access.platform, args, o.json);
  if (o.json) process.stdout.write(`${JSON.stringify(final, null, 2)}\n`);
  if (final.state === "failed") {
    throw new Error(`import ${final.task_id} failed: ${final.errors.map((e) => e.message).join("; ")}`);
  }
}

/** Queues the job on the running platform and follows it until it ends. */
async function followRunningPlatform(config: Config, args: Record<string, unknown>, quiet?: boolean) {
  const job = (await runOperatorCommand(config, "wearables", "import", args)) as ImportStatus;
  const status = () =>
    runOperatorCommand(config, "wearables", "import-status", { task_id: job.task_id }) as Promise<ImportStatus>;
  return follow(job, status, undefined, quiet);
}

/** Queues the job on the platform this process opened and runs it here while the bar follows it. */
function runHere(platform: Platform, args: Record<string, unknown>, quiet?: boolean) {
  return withOperatorCommands(platform, "wearables", async (commands) => {
    const [queue, status, run] = [commands.import, commands["import-status"], commands["import-run"]];
    if (!queue || !status || !run) throw new Error("this build of wearables has no import commands");
    const job = (await queue(args)) as ImportStatus;
    const running = run({ task_id: job.task_id });
    return await follow(job, () => status({ task_id: job.task_id }) as Promise<ImportStatus>, running, quiet);
  });
}

/** Redraws the bar every 250 ms until the job is completed or failed (or `running` settles). */
async function follow(
  job: ImportStatus,
  status: () => Promise<ImportStatus>,
  running?: Promise<unknown>,
  quiet?: boolean,
): Promise<ImportStatus> {
  const bar = quiet ? undefined : createProgressBar("MB");
  const mb = (bytes: number) => bytes / 1_000_000;
  let settled = false;
  const done = running?.then(
    () => {
      settled = true;
    },
    (error: unknown) => {
      settled = true;
      throw error;
    },
  );
  let current = job;
  for (;;) {
    current = await status();
    bar?.update(
      mb(current.bytes_read),
      mb(current.file_bytes),
      `${current.state}: ${current.items_processed.toLocaleString("en-US")} items, ` +
        `${current.samples_written.toLocaleString("en-US")} samples, ${current.events_written} events`,
    );
    if (current.state === "completed" || current.state === "failed" || settled) break;
    await Promise.race([new Promise((r) => setTimeout(r, 250)), done?.catch(() => undefined)]);
  }
  await done;
  current = await status();
  bar?.finish(
    `${current.kind} import ${current.task_id} ${current.state}: ${current.items_processed.toLocaleString("en-US")} items, ` +
      `${current.samples_written.toLocaleString("en-US")} samples and ${current.events_written} events written`,
  );
  return current;
}

/**
 * `platform wearables demo-data [--user <id>] [--days N] [--seed S]`: writes a plausible stretch of one person's
 * data (a seeded Apple Health export: heart rate, steps, energy, sleep with stages, workouts, body mass) to a
 * temporary file and imports it through the same path as `platform wearables import`, for the demo user
 * (`demo@example.com`, created the first time) unless a user is named.
 */
export async function wearablesDemoData(
  config: Config,
  o: { user?: string; days?: number; seed?: number; json?: boolean },
): Promise<void> {
  const days = o.days ?? 365;
  const userId = o.user ?? (await demoUserId(config));
  const dir = mkdtempSync(join(tmpdir(), "wearables-demo-"));
  const file = join(dir, "export.xml");
  try {
    if (!o.json) process.stdout.write(`Generating ${days} days of demo data for user ${userId}...\n`);
    await writeDemoExport({ days, seed: o.seed ?? 1, out: createWriteStream(file) });
    await wearablesImport(config, userId, file, { kind: "apple", ...(o.json ? { json: true } : {}) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The demo user's id (made the first time), through the running platform or this process. */
async function demoUserId(config: Config): Promise<string> {
  const user = (await runOperatorCommand(config, "wearables", "demo-user", {})) as { id: string };
  return user.id;
}
