/**
 * The `sync` part: the provider sync's write path, in process (no vendor, no HTTP). Vendor pages as an adapter
 * maps them (`MappedRecords`: per day, a watch's heart rate every `heartRateEverySec` s and steps every minute,
 * plus one workout and one night's sleep) are written one page per transaction through `writeMappedRecords`,
 * as the sync job writes them (its checkpoint row aside). Against a raw COPY of the very rows the pages wrote
 * (sampleRows.ts: dumped in primary key order, the table emptied, COPY in 50,000-row transactions). Then the
 * same pages written again (`replay`: what a re-synced window costs; nothing changes, nothing is counted).
 * On a fresh `bench_wearables_sync` database per driver.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, kernelMigrations, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import type { MappedRecords } from "../../packages/wearables/src/providers/types.ts";
import { createHealthDataWriter } from "../../packages/wearables/src/store/healthDataWriter.ts";
import { writeMappedRecords } from "../../packages/wearables/src/sync/writeMappedRecords.ts";
import { withWebhookEvents } from "../../packages/wearables/src/webhooks/eventingWriter.ts";
import { createWebhookOutbox } from "../../packages/wearables/src/webhooks/webhookOutbox.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { copySamplesFrom, dumpAndEmptySamples } from "./sampleRows.ts";

export const syncBench = benchDatabase("wearables_sync");

export interface SyncSide {
  rows: number;
  seconds: number;
  rowsPerSec: number;
}

export interface SyncResult {
  days: number;
  pages: number;
  heartRateEverySec: number;
  /** Rows in the table after the sync (what the raw COPY writes again). */
  tableRows: number;
  sync: SyncSide & { events: number };
  copy: SyncSide;
  replay: SyncSide & { written: number };
  /** sync samples/s over raw COPY rows/s (goal ≥ 0.5). */
  ratio: number;
}

const DAY_MS = 86_400_000;
const WATCH = { deviceModel: "Forerunner 965", source: "garmin_connect", deviceType: "watch" };

/** The page of day `d` (days after `start`), as an adapter maps a vendor's daily answer. */
export function dayPage(start: number, d: number, heartRateEverySec: number): MappedRecords {
  const day = start + d * DAY_MS;
  const samples: MappedRecords["samples"] = [];
  for (let t = 0; t < DAY_MS; t += heartRateEverySec * 1_000) {
    const bpm = 58 + Math.round(25 * Math.abs(Math.sin((day + t) / 3_600_000)));
    samples.push({ ...WATCH, seriesType: 1, recordedAt: day + t, value: bpm, zoneOffsetMinutes: 60 });
  }
  for (let t = 0; t < DAY_MS; t += 60_000) {
    const steps = (t / 60_000) % 7 === 0 ? 0 : 20 + ((t / 60_000) % 90);
    samples.push({ ...WATCH, seriesType: 80, recordedAt: day + t, value: steps, zoneOffsetMinutes: 60 });
  }
  const run = day + 17 * 3_600_000;
  const night = day - 2 * 3_600_000;
  return {
    samples,
    workouts: [
      {
        ...WATCH,
        type: "running",
        start: run,
        end: run + 2_700_000,
        zoneOffset: "+01:00",
        externalId: `run-${d}`,
        details: { heartRateAvg: 148, heartRateMax: 171, distance: 7_400, energyBurned: 520 },
      },
    ],
    sleeps: [
      {
        ...WATCH,
        start: night,
        end: night + 8 * 3_600_000,
        zoneOffset: "+01:00",
        externalId: `sleep-${d}`,
        details: {
          isNap: false,
          totalDurationMinutes: 450,
          deepMinutes: 90,
          remMinutes: 100,
          lightMinutes: 260,
          awakeMinutes: 30,
          stages: [
            { stage: "light", start: night, end: night + 3_600_000 },
            { stage: "deep", start: night + 3_600_000, end: night + 9_000_000 },
            { stage: "rem", start: night + 9_000_000, end: night + 8 * 3_600_000 },
          ],
        },
      },
    ],
  };
}

async function freshDatabase(driver: Driver): Promise<{ db: Database; userId: string }> {
  if (driver === "postgres") await syncBench.preparePostgres({ fresh: true });
  else rmSync(syncBench.pgliteDir, { recursive: true, force: true });
  const db = await syncBench.open(driver);
  await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
  const [user] = await db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('sync@bench.test') RETURNING id",
  );
  return { db, userId: user?.id as string };
}

/** The sync's own writer: the health data writer with webhook events (no endpoint here: one read per write). */
const writer = withWebhookEvents(createHealthDataWriter(), createWebhookOutbox());

/** Writes every page, one transaction each; answers the rows written and the seconds taken. */
async function writePages(db: Database, userId: string, pages: MappedRecords[]) {
  let written = 0;
  const started = performance.now();
  for (const records of pages) {
    written += await db.transaction((tx) =>
      writeMappedRecords(tx, writer, { userId, provider: "garmin", connectionId: null, records }),
    );
  }
  return { written, seconds: (performance.now() - started) / 1000 };
}

const side = (rows: number, seconds: number): SyncSide => ({
  rows,
  seconds: Math.round(seconds * 100) / 100,
  rowsPerSec: Math.round(rows / seconds),
});

export async function syncBenchmark(
  driver: Driver,
  { days, heartRateEverySec }: { days: number; heartRateEverySec: number },
): Promise<SyncResult> {
  const start = Date.UTC(2026, 0, 1);
  const pages = Array.from({ length: days }, (_, d) => dayPage(start, d, heartRateEverySec));
  const events = pages.reduce((n, p) => n + p.workouts.length + p.sleeps.length, 0);
  const { db, userId } = await freshDatabase(driver);
  try {
    const first = await writePages(db, userId, pages);
    const replay = await writePages(db, userId, pages);
    const rowsFile = join(tmpdir(), `platform-bench-wearables-sync.${driver}.rows`);
    const tableRows = await dumpAndEmptySamples(db, rowsFile);
    const copyStarted = performance.now();
    const copied = await copySamplesFrom(db, rowsFile);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    rmSync(rowsFile, { force: true });
    const samples = first.written - events;
    const sync = { ...side(samples, first.seconds), events };
    const copy = side(copied, copySeconds);
    return {
      days,
      pages: pages.length,
      heartRateEverySec,
      tableRows,
      sync,
      copy,
      replay: { ...side(tableRows, replay.seconds), written: replay.written - events },
      ratio: Math.round((sync.rowsPerSec / copy.rowsPerSec) * 1000) / 1000,
    };
  } finally {
    await db.close();
  }
}
