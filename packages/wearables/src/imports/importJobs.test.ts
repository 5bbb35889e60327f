/**
 * The import jobs (kernel queue `wearables.import`) against the real database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): a full Apple export, its zip, resumption after runs dying at random chunks (same rows as
 * an uninterrupted import), failures (committed chunks stay, nothing of the failing one), hostile files,
 * FIT/GPX/TCX jobs, and slices (a long import continued in new jobs).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type Database, kernelMigrations, listJobs, migrate, retryJob } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseTcx } from "../importers/tcx.ts";
import { wearablesService } from "../index.ts";
import { createImportsService } from "../services/imports.ts";
import { createImportJobsRepository, type ImportJobRow } from "../store/importJobsRepository.ts";
import { appleExportXml, appleExportZip, zipBytes } from "../testing/appleExport.ts";
import { writeFitFile } from "../testing/fitFile.ts";
import { writeGpxFile } from "../testing/gpxFile.ts";
import { importSnapshot } from "../testing/importSnapshot.ts";
import { drainQueue } from "../testing/jobWorkers.ts";
import { writeTcxFile } from "../testing/tcxFile.ts";
import { makeWorkoutFixture } from "../testing/workoutFixture.ts";
import { openExportXmlInZip } from "./exportZip.ts";
import { createImportQueue, IMPORT_QUEUE, type ImportJobHooks } from "./importJobs.ts";

let database: TestDatabase;
let db: Database;
let dir: string;
let userId: string;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
  dir = mkdtempSync(join(tmpdir(), "wearables-imports-"));
  const [user] = await db.query<{ id: string }>("INSERT INTO wearables.users (first_name) VALUES ('Ada') RETURNING id");
  userId = (user as { id: string }).id;
});
afterAll(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.exec(`DELETE FROM wearables.import_jobs; DELETE FROM wearables.data_sources;
    DELETE FROM wearables.personal_records; DELETE FROM platform.jobs;`);
});

const repository = () => createImportJobsRepository(db);
const file = (name: string, content: string | Uint8Array) => {
  const path = join(dir, `fixture-${name}`);
  writeFileSync(path, content);
  return path;
};
const queue = (path: string, kind?: "apple" | "fit" | "gpx" | "tcx") =>
  createImportsService({ db, repository: repository() }).importPath(userId, path, kind);
/** Runs the queued imports on a kernel worker until none is left; retries come quickly. */
const runImports = (
  chunkItems: number,
  options: { hooks?: ImportJobHooks; sliceMs?: number; readerThreadMinBytes?: number } = {},
) =>
  drainQueue(
    db,
    logger,
    IMPORT_QUEUE,
    createImportQueue({ db, logger, chunkItems, backoff: { baseMs: 10, maxMs: 50 }, ...options }).queue,
  );
/** What a run dying for a reason not the file's throws (a database connection ended: SQLSTATE 57P01). */
const died = () => Object.assign(new Error("killed"), { code: "57P01" });
const importJob = async () => {
  const [job] = await listJobs(db, { queue: IMPORT_QUEUE });
  return job;
};
const job = async (id: string) => (await repository().get(id)) as ImportJobRow;

const XML = appleExportXml({ extraHeartRates: 300 });

describe("Apple Health import job", () => {
  it("imports every element kind with units converted", async () => {
    const queued = await queue(file("export.xml", XML));
    expect(queued.kind).toBe("apple_xml");
    await runImports(50);
    const done = await job(queued.id);
    expect(done).toMatchObject({
      state: "completed",
      errors: [],
      bytes_read: Buffer.byteLength(XML),
      events_written: 5,
    });
    expect(done.items_processed).toBeGreaterThan(400);
    const s = await importSnapshot(db);
    const value = (type: number, model: string | null = "Watch6,12") =>
      s.samples.filter((r) => r.series_type === type && r.device_model === model).map((r) => r.value);
    expect(value(41)[0]).toBeCloseTo(70, 3); // lb → kg
    expect(value(45).filter((v) => Math.abs((v as number) - 37) < 1e-3)).toHaveLength(1); // °F → °C
    expect(value(20)[0]).toBeCloseTo(97, 3); // fraction → percent
    expect(value(81)[0]).toBeCloseTo(100, 3); // kJ → kcal
    expect(value(101)[0]).toBeCloseTo(1609.344, 2); // mi → m
    // The correlation's records are not counted twice: one systolic from Omron.
    expect(s.samples.filter((r) => r.series_type === 22 && r.original_source_name === "Omron")).toHaveLength(1);
    // Activity summaries: daily totals of energy (kJ converted) and exercise minutes; no stand hours.
    const totals = s.samples.filter((r) => r.is_daily_total === true);
    expect(totals.map((r) => [r.series_type, Math.round(r.value as number), r.zone_offset])).toEqual([
      [81, 450, 60],
      [81, 250, 60],
      [84, 35, 60],
      [84, 60, 60],
    ]);
    expect(totals[0]?.recorded_at).toEqual(new Date("2026-02-28T23:00:00.000Z"));
    // Zone offsets from the dates' +0100.
    expect(new Set(s.samples.map((r) => r.zone_offset))).toEqual(new Set([60]));
    // Sleep: two nights and a nap, with stages; workouts with statistics.
    const sleep = s.events.filter((e) => e.category === "sleep");
    expect(sleep.map((e) => [(e.sleep as { is_nap: boolean }).is_nap, e.duration_seconds])).toEqual([
      [false, 28_800],
      [true, 2_400],
      [false, 28_800],
    ]);
    expect(sleep[0]?.sleep).toMatchObject({ sleep_deep_minutes: 80, sleep_rem_minutes: 90, sleep_light_minutes: 280 });
    const [run, ride] = s.events.filter((e) => e.category === "workout");
    const details = (e: typeof run) => (e?.workout ?? {}) as Record<string, string | number>;
    expect(run).toMatchObject({ type: "running", zone_offset: "+01:00", device_model: "Watch6,12" });
    expect(details(run)).toMatchObject({ heart_rate_min: 110, heart_rate_max: 178, steps_count: 5200 });
    expect(Number(details(run).energy_burned)).toBeCloseTo(300, 1);
    expect(Number(details(run).distance)).toBeCloseTo(4988.97, 1);
    expect(Number(details(run).average_speed)).toBeCloseTo(3, 3);
    expect(ride?.type).toBe("cycling");
    expect(Number(details(ride).distance)).toBe(20_000);
    expect(s.personal).toEqual([{ birth_date: "1990-05-17", sex: false }]);
    expect(s.nights.map((n) => n.night)).toEqual(["2026-03-02", "2026-03-03"]);
    expect(s.sources.map((d) => [d.source, d.device_model, d.device_type])).toEqual([
      ["apple_activity_summary", null, null],
      ["Omron", null, null],
      ["Ada's Apple Watch", "Watch6,12", "watch"],
      ["Ada's iPhone", "iPhone15,2", "phone"],
    ]);
  });

  it("imports export.zip like export.xml, and resumes after runs dying at random chunks with the same rows", async () => {
    await queue(file("whole.xml", XML));
    await runImports(40);
    const expected = await importSnapshot(db);
    const expectedJob = (await db.query<ImportJobRow>("SELECT * FROM wearables.import_jobs"))[0] as ImportJobRow;

    for (const [i, kind] of (["zip", "xml", "xml", "zip"] as const).entries()) {
      await db.exec(
        "DELETE FROM wearables.import_jobs; DELETE FROM wearables.data_sources; DELETE FROM wearables.personal_records; DELETE FROM platform.jobs;",
      );
      const queued = await queue(kind === "zip" ? file(`e${i}.zip`, appleExportZip(XML)) : file(`e${i}.xml`, XML));
      // The first three runs die at a random chunk (rolled back); the kernel retries, each run resumes.
      const dieAt = [1, 2, 3].map(() => 1 + Math.floor(Math.random() * 6));
      let deaths = 0;
      await runImports(40, {
        hooks: {
          duringChunk(_job, index, attempt) {
            if (index + 1 !== dieAt[attempt - 1]) return;
            deaths++;
            throw died();
          },
        },
      });
      expect(deaths).toBeGreaterThan(0);
      expect((await importJob())?.attempts).toBe(deaths + 1);
      const done = await job(queued.id);
      expect(done.state).toBe("completed");
      expect(await importSnapshot(db)).toEqual(expected);
      expect(done.samples_written).toBe(Number(expectedJob.samples_written));
      expect(done.events_written).toBe(Number(expectedJob.events_written));
      expect(done.items_processed).toBe(Number(expectedJob.items_processed));
      expect(await db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
    }
  });

  it("continues a long import in slices, each a kernel job of its own, with the same rows", async () => {
    await queue(file("whole.xml", XML));
    await runImports(40);
    const expected = await importSnapshot(db);
    await db.exec(
      "DELETE FROM wearables.import_jobs; DELETE FROM wearables.data_sources; DELETE FROM wearables.personal_records; DELETE FROM platform.jobs;",
    );
    const queued = await queue(file("sliced.xml", XML));
    await runImports(40, { sliceMs: 0 }); // every run stops after its first chunk
    expect((await job(queued.id)).state).toBe("completed");
    expect(await importSnapshot(db)).toEqual(expected);
    const runs = await listJobs(db, { queue: IMPORT_QUEUE });
    expect(runs.length).toBeGreaterThan(5);
    expect(runs.every((r) => r.state === "completed" && r.singleton_key === queued.id)).toBe(true);
  });

  it("fails on the kernel's last attempt when every run dies, keeps its upload, and resumes when its dead job is retried", async () => {
    const queued = await queue(file("dying.xml", XML));
    let runs = 0;
    await runImports(40, {
      hooks: {
        duringChunk(_job, index) {
          if (index === 1) {
            runs++;
            throw died();
          }
        },
      },
    });
    expect(runs).toBe(5);
    const dead = await importJob();
    expect(dead).toMatchObject({ state: "dead", attempts: 5 });
    const failed = await job(queued.id);
    expect(failed).toMatchObject({ state: "failed", errors: [{ message: "killed", at: expect.any(String) }] });
    expect(failed.items_processed).toBeGreaterThanOrEqual(5 * 40); // the first chunk of each run
    expect((await db.query("SELECT 1 FROM wearables.import_files")).length).toBeGreaterThan(0);

    await retryJob(db, dead?.id as string);
    await runImports(40);
    const done = await job(queued.id);
    expect(done).toMatchObject({ state: "completed", finished_at: expect.any(Date) });
    expect(done.samples_written).toBe(
      (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM wearables.samples"))[0]?.n,
    );
    expect(await db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
  });

  it("reads an export on a thread of its own (a large one's case) with the same rows, resuming dead runs", async () => {
    await queue(file("reference.xml", XML));
    await runImports(40);
    const expected = await importSnapshot(db);
    const expectedJob = (await db.query<ImportJobRow>("SELECT * FROM wearables.import_jobs"))[0] as ImportJobRow;
    for (const [i, kind] of (["zip", "xml"] as const).entries()) {
      await db.exec(
        "DELETE FROM wearables.import_jobs; DELETE FROM wearables.data_sources; DELETE FROM wearables.personal_records; DELETE FROM platform.jobs;",
      );
      const queued = await queue(kind === "zip" ? file(`t${i}.zip`, appleExportZip(XML)) : file(`t${i}.xml`, XML));
      const dieAt = 1 + Math.floor(Math.random() * 6);
      await runImports(40, {
        readerThreadMinBytes: 0,
        hooks: {
          duringChunk(_job, index, attempt) {
            if (attempt === 1 && index + 1 === dieAt) throw died();
          },
        },
      });
      const done = await job(queued.id);
      expect(done.state).toBe("completed");
      expect(await importSnapshot(db)).toEqual(expected);
      expect(done.samples_written).toBe(Number(expectedJob.samples_written));
      expect(done.items_processed).toBe(Number(expectedJob.items_processed));
    }
  });

  it.each([
    ["on the import's thread", false],
    ["on a reader thread", true],
  ])(
    "fails with a clear error, keeping the committed chunks and nothing of the failing one (%s)",
    async (_, onThread) => {
      const lines = XML.split("\n");
      const at = lines.findIndex((l) => l.includes("HKQuantityTypeIdentifierHeartRate")) + 200;
      const marker = lines[at - 1] as string;
      expect(marker).toContain("HeartRate");
      lines.splice(at, 0, lines[at - 1]?.replace('unit="count/min"', 'unit="degF"') as string);
      const queued = await queue(file("bad-unit.xml", lines.join("\n")));
      await runImports(25, { readerThreadMinBytes: onThread ? 0 : undefined });
      const failed = await job(queued.id);
      expect(failed.state).toBe("failed");
      expect(failed.errors).toEqual([
        {
          message: expect.stringMatching(/line \d+: unit "degF" of a heart_rate record cannot be converted to bpm/),
          at: expect.any(String),
        },
      ]);
      const committed = failed.items_processed;
      expect(committed).toBeGreaterThan(0);
      expect(committed).toBeLessThan(at);
      // The marker (the record just before the bad one, same chunk) is not in; what came before the chunk is.
      const markerStart = /startDate="([^"]+)"/.exec(marker)?.[1] as string;
      const rows = await db.query(
        "SELECT count(*)::int AS n FROM wearables.samples WHERE series_type = 1 AND recorded_at = $1",
        [new Date(markerStart.replace(" ", "T").replace(/ ([+-]\d\d)(\d\d)$/, "$1:$2"))],
      );
      expect(rows[0]?.n).toBe(0);
      const [{ n } = { n: 0 }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM wearables.samples");
      expect(n).toBeGreaterThan(0);
      expect(failed.samples_written).toBe(n);
    },
  );

  it.each([
    [
      "entity expansion",
      '<?xml version="1.0"?>\n<!DOCTYPE HealthData [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n<HealthData locale="en">&b;</HealthData>',
      /entit/,
    ],
    ["a truncated file", XML.slice(0, Math.floor(XML.length * 0.8)), /ends before <\/HealthData>|truncated/],
    ["a file that is not XML", "\u0000\u0001binary", /not a well-formed/],
  ])("refuses %s", async (_name, content, message) => {
    const queued = await queue(file("hostile.xml", content));
    await runImports(100);
    const failed = await job(queued.id);
    expect(failed.state).toBe("failed");
    expect(failed.errors[0]?.message).toMatch(message);
  });

  it("refuses zip bombs, lying zip headers, zips without export.xml and too many entries", async () => {
    const bomb = zipBytes([{ name: "apple_health_export/export.xml", data: Buffer.alloc(40 * 1024 * 1024, 32) }]);
    const lying = zipBytes([{ name: "apple_health_export/export.xml", data: Buffer.from(XML), declaredSize: 1000 }]);
    const empty = zipBytes([{ name: "apple_health_export/other.txt", data: Buffer.from("x") }]);
    const cases: [Uint8Array, RegExp][] = [
      [bomb, /zip bomb/],
      [lying, /cannot read the file|bytes|size/i],
      [empty, /no apple_health_export\/export.xml/],
      [Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.alloc(100)]), /not a readable zip/],
    ];
    for (const [bytes, message] of cases) {
      const queued = await queue(file("hostile.zip", bytes));
      expect(queued.kind).toBe("apple_zip");
      await runImports(100);
      const failed = await job(queued.id);
      expect(failed.state, String(message)).toBe("failed");
      expect(failed.errors[0]?.message).toMatch(message);
    }
    const { count } = (await db.query<{ count: number }>("SELECT count(*)::int FROM wearables.samples"))[0] as {
      count: number;
    };
    expect(count).toBe(0);
    await expect(openExportXmlInZip(file("many.zip", appleExportZip(XML)), { maxEntries: 2 })).rejects.toThrow(
      /3 entries, more than 2/,
    );
  });
});

describe("workout file import jobs", () => {
  it("imports a GPX and a FIT workout in chunks, and resumes a killed FIT import", async () => {
    const fixture = makeWorkoutFixture({ seconds: 300, withPower: true, withPosition: true });
    const gpx = await queue(file("ride.gpx", writeGpxFile(fixture)));
    await runImports(100);
    expect(await job(gpx.id)).toMatchObject({ state: "completed", kind: "gpx", events_written: 1 });
    expect((await job(gpx.id)).samples_written).toBeGreaterThan(300);

    await db.exec("DELETE FROM wearables.data_sources; DELETE FROM platform.jobs;");
    const fit = await queue(file("run.fit", writeFitFile(fixture)));
    const seen: [number, number][] = [];
    await runImports(200, {
      hooks: {
        duringChunk(_j, index, attempt) {
          seen.push([attempt, index]);
          if (attempt === 1 && index === 1) throw died();
        },
      },
    });
    // The second run resumed at the second chunk (the first one's committed 200 samples are not read again).
    expect(seen.slice(0, 3)).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
    expect((await importJob())?.attempts).toBe(2);
    const done = await job(fit.id);
    expect(done).toMatchObject({ state: "completed", events_written: 1 });
    const [{ n } = { n: 0 }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM wearables.samples");
    expect(done.samples_written).toBe(n);
    expect(done.items_processed).toBe(n);
    expect(seen.filter(([attempt]) => attempt === 2).length).toBe(Math.ceil((n - 200) / 200));
  });

  it("fails a FIT file with a bad CRC and writes nothing", async () => {
    const bytes = writeFitFile(makeWorkoutFixture({ seconds: 60 }));
    const corrupt = Uint8Array.from(bytes);
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] as number) ^ 0xff;
    const queued = await queue(file("bad.fit", corrupt));
    await runImports(100);
    const failed = await job(queued.id);
    expect(failed.state).toBe("failed");
    expect(failed.errors[0]?.message).toMatch(/CRC/i);
    const [{ n } = { n: 0 }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM wearables.samples");
    expect(n).toBe(0);
  });
});

describe("workout files the database would refuse", () => {
  it("fails a file whose workout overflows a column before writing any sample (not after the first chunks)", async () => {
    const fixture = makeWorkoutFixture({ seconds: 60 });
    const good = await parseTcx(writeTcxFile(fixture));
    // What a parser letting through an impossible figure answers (Movescount's lap MaximumSpeed 18720 was one).
    const parser = () => ({
      ...good,
      workout: { ...good.workout, details: { ...good.workout.details, maxSpeed: 18720 } },
    });
    const queued = await queue(file("overflow.tcx", "<TrainingCenterDatabase/>"), "tcx");
    await drainQueue(
      db,
      logger,
      IMPORT_QUEUE,
      createImportQueue({
        db,
        logger,
        chunkItems: 50,
        backoff: { baseMs: 10, maxMs: 50 },
        workoutFileParsers: { tcx: parser },
      }).queue,
    );
    const failed = await job(queued.id);
    expect(failed.state).toBe("failed");
    expect(failed.errors[0]?.message).toMatch(/numeric field overflow/);
    expect(failed).toMatchObject({ samples_written: 0, events_written: 0 });
    const [{ n } = { n: 0 }] = await db.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM wearables.samples) + (SELECT count(*) FROM wearables.events) AS n",
    );
    expect(Number(n)).toBe(0);
  });

  it("imports the Movescount case: impossible lap speeds dropped and counted, the rest written", async () => {
    const fixture = makeWorkoutFixture({ seconds: 60 });
    const tcx = writeTcxFile(fixture, { laps: 2 }).replace(/<MaximumSpeed>[^<]*</g, "<MaximumSpeed>18720<");
    const queued = await queue(file("movescount.tcx", tcx));
    await runImports(50);
    expect(await job(queued.id)).toMatchObject({ state: "completed", events_written: 1 });
    const [row] = await db.query<{ max_speed: string }>("SELECT max_speed FROM wearables.workout_details");
    expect(Number(row?.max_speed)).toBe(Math.max(...fixture.points.map((p) => p.speed as number)));
  });
});

describe("operator commands (platform wearables import)", () => {
  it("queue a file by path, run it to its end and report its status; bad input is refused", async () => {
    const { createImportsModule } = await import("./importsModule.ts");
    const { OperatorInputError } = await import("@platform/kernel");
    const module = createImportsModule({ db, logger, chunkItems: 100 });
    const commands = module.operatorCommands as Record<string, (a: Record<string, unknown>) => Promise<unknown>>;
    const elsewhere = mkdtempSync(join(tmpdir(), "wearables-cli-"));
    const path = join(elsewhere, "fixture-cli.xml");
    writeFileSync(path, XML);
    const queued = (await commands.import?.({ user_id: userId, file: path })) as { task_id: string; state: string };
    expect(queued).toMatchObject({ state: "queued", kind: "apple_xml", file_name: "fixture-cli.xml" });
    const final = await commands["import-run"]?.({ task_id: queued.task_id });
    expect(final).toMatchObject({ state: "completed", bytes_read: Buffer.byteLength(XML), events_written: 5 });
    expect(await commands["import-status"]?.({ task_id: queued.task_id })).toEqual(final);
    // The user's own file is left where it was.
    expect(readFileSync(path, "utf8")).toBe(XML);
    rmSync(elsewhere, { recursive: true, force: true });
    await expect(commands.import?.({ user_id: "nope", file: path })).rejects.toThrow(OperatorInputError);
    await expect(commands.import?.({ user_id: userId, file: join(dir, "missing.xml") })).rejects.toThrow(
      /No such file/,
    );
    await expect(commands.import?.({ user_id: "00000000-0000-4000-8000-000000000000", file: path })).rejects.toThrow(
      /User with ID/,
    );
    await expect(commands.import?.({ user_id: userId, file: path, kind: "pdf" })).rejects.toThrow(/kind must be/);
  });
});
