/**
 * The `timeseries` part's database: `bench_wearables_timeseries` on the local PostgreSQL server, or a PGlite
 * folder in the temp directory, migrated with the service's own migrations and seeded ONCE with one user's
 * samples in `wearables.samples` (INSERT … SELECT generate_series, in PK order, a chunk per statement so the
 * progress shows), then reused by later runs while the seeded shape is the same.
 *
 * The user has `sources` data sources (a watch, a phone, …), each with a year (2025) of heart rate spread
 * evenly (1 Hz at 31.5M a source; the interval is what the sample count allows), and the first source also a
 * year of steps a minute. The seeding disables the table's triggers (the FK check of each row) while it
 * inserts: the keys are the ones it just made.
 */
import { kernelMigrations, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";

export const timeseriesBench = benchDatabase("wearables_timeseries");

export const YEAR_START = Date.UTC(2025, 0, 1);
export const YEAR_END = Date.UTC(2026, 0, 1);
const YEAR_SECONDS = (YEAR_END - YEAR_START) / 1000;
const MINUTES_A_YEAR = YEAR_SECONDS / 60;
const HEART_RATE = 1;
const STEPS = 80;
const CHUNK = 2_000_000;

export interface SeededTimeseries {
  userId: string;
  samples: number;
  sources: number;
  /** Heart rate samples a source, and their spacing in seconds. */
  heartRatePerSource: number;
  heartRateIntervalSec: number;
  /** Seconds the seeding took (0 when the database was reused). */
  seedSec: number;
  reused: boolean;
}

/** Migrates and seeds (unless the same shape is already there) the database of `driver`. */
export async function prepareTimeseriesDatabase(
  driver: Driver,
  o: { samples: number; sources: number },
): Promise<SeededTimeseries> {
  const db = await timeseriesBench.open(driver);
  try {
    await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
    await db.exec("CREATE TABLE IF NOT EXISTS public.bench_seed (spec text PRIMARY KEY, user_id uuid NOT NULL)");
    const heartRatePerSource = Math.floor((o.samples - MINUTES_A_YEAR) / o.sources);
    if (heartRatePerSource <= 0) throw new Error(`BENCH_TS_SAMPLES must exceed ${MINUTES_A_YEAR} (a year of steps)`);
    const shape = {
      samples: heartRatePerSource * o.sources + MINUTES_A_YEAR,
      sources: o.sources,
      heartRatePerSource,
      heartRateIntervalSec: Math.round((YEAR_SECONDS / heartRatePerSource) * 1000) / 1000,
    };
    const spec = JSON.stringify({ samples: shape.samples, sources: o.sources });
    const [seeded] = await db.query<{ user_id: string }>("SELECT user_id FROM public.bench_seed WHERE spec = $1", [
      spec,
    ]);
    if (seeded) return { userId: seeded.user_id, ...shape, seedSec: 0, reused: true };

    await db.exec(
      "DELETE FROM public.bench_seed; TRUNCATE wearables.samples; DELETE FROM wearables.data_sources; DELETE FROM wearables.users;",
    );
    const [user] = await db.query<{ id: string }>(
      "INSERT INTO wearables.users (email, first_name) VALUES ('timeseries@bench.test', 'Bench') RETURNING id",
    );
    const userId = user?.id as string;
    const keys: number[] = [];
    for (let s = 0; s < o.sources; s++) {
      const [row] = await db.query<{ key: number }>(
        `INSERT INTO wearables.data_sources (user_id, provider, device_model, source, device_type)
         VALUES ($1, 'apple', $2, $3, 'watch') RETURNING key`,
        [userId, `Watch${s + 1},1`, `Bench Watch ${s + 1}`],
      );
      keys.push(Number(row?.key));
    }
    const started = performance.now();
    let done = 0;
    const progress = () => {
      const sec = (performance.now() - started) / 1000;
      const rate = done / Math.max(sec, 0.001);
      process.stdout.write(
        `\r  seeding ${driver}: ${(done / 1e6).toFixed(1)}M / ${(shape.samples / 1e6).toFixed(1)}M samples, ` +
          `${Math.round(rate).toLocaleString()} rows/s, ${Math.round(sec)} s, ETA ${Math.round((shape.samples - done) / rate)} s   `,
      );
    };
    await db.exec("ALTER TABLE wearables.samples DISABLE TRIGGER ALL");
    try {
      // Per source its heart rate, then (the first source only) its steps: the primary key's order.
      for (const [s, key] of keys.entries()) {
        for (let first = 0; first < heartRatePerSource; first += CHUNK) {
          const last = Math.min(heartRatePerSource, first + CHUNK) - 1;
          await db.query(
            `INSERT INTO wearables.samples (source_key, series_type, recorded_at, value, zone_offset)
             SELECT $1, ${HEART_RATE}, $2::timestamptz + make_interval(secs => i * $3::float8),
                    (68 + 18 * sin(i / 2700.0 + $6) + (i * 7919 + $6) % 9)::real, 60
             FROM generate_series($4::bigint, $5::bigint) AS i`,
            [key, new Date(YEAR_START), YEAR_SECONDS / heartRatePerSource, first, last, s],
          );
          done += last - first + 1;
          progress();
        }
        if (s === 0) {
          await db.query(
            `INSERT INTO wearables.samples (source_key, series_type, recorded_at, value, zone_offset, is_daily_total)
             SELECT $1, ${STEPS}, $2::timestamptz + i * interval '1 minute', ((i * 31) % 120)::real, 60, false
             FROM generate_series(0, $3::int - 1) AS i`,
            [key, new Date(YEAR_START), MINUTES_A_YEAR],
          );
          done += MINUTES_A_YEAR;
          progress();
        }
      }
    } finally {
      await db.exec("ALTER TABLE wearables.samples ENABLE TRIGGER ALL");
    }
    process.stdout.write("\n");
    await db.exec("ANALYZE wearables.samples; ANALYZE wearables.data_sources;");
    if (driver === "postgres") await db.exec("CHECKPOINT");
    const seedSec = Math.round(performance.now() - started) / 1000;
    await db.query("INSERT INTO public.bench_seed (spec, user_id) VALUES ($1, $2)", [spec, userId]);
    return { userId, ...shape, seedSec, reused: false };
  } finally {
    await db.close();
  }
}

/** The size of `wearables.samples` (table + indexes) in MiB. */
export async function samplesSizeMiB(driver: Driver): Promise<number> {
  const db = await timeseriesBench.open(driver);
  try {
    const [row] = await db.query<{ b: string }>("SELECT pg_total_relation_size('wearables.samples')::text AS b");
    return Math.round(Number(row?.b) / 1024 / 1024);
  } finally {
    await db.close();
  }
}
