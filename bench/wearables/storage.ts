/**
 * The `storage` part of the wearables benchmark: the same samples in our layout (`wearables.samples`, from the
 * service's migrations) and in the anchor's (`data_point_series` of Open Wearables 0.6.3, reference §1.4–§5:
 * a uuid id, a uuid data source, numeric(10,3) values, a varchar zone offset, a unique (source, type, time)
 * index beside the primary key). For each: bytes per sample (table + indexes), load rate with COPY, a one-day
 * window of one type and one source, and a year of heart rate by the hour (date_bin GROUP BY), the median of
 * `rounds` runs each after a warm-up.
 */
import type { Database } from "@platform/kernel";

export interface LayoutResult {
  layout: "ours" | "anchor";
  samples: number;
  bytesPerSample: number;
  tableMiB: number;
  indexMiB: number;
  loadRowsPerSec: number;
  dayWindowMs: number;
  yearHourlyMs: number;
}

export interface StorageResult {
  samples: number;
  sources: number;
  ours: LayoutResult;
  anchor: LayoutResult;
  /** anchor bytes per sample / ours. */
  sizeRatio: number;
}

const ANCHOR_DDL = `
  CREATE SCHEMA IF NOT EXISTS anchor;
  DROP TABLE IF EXISTS anchor.data_point_series;
  CREATE TABLE anchor.data_point_series (
    id uuid PRIMARY KEY,
    external_id varchar(100),
    data_source_id uuid NOT NULL,
    recorded_at timestamptz NOT NULL,
    zone_offset varchar(10),
    value numeric(10, 3) NOT NULL,
    series_type_definition_id integer NOT NULL,
    is_daily_total boolean,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT uq_data_point_series_source_type_time UNIQUE (data_source_id, series_type_definition_id, recorded_at)
  );`;

const DAY = 86_400_000;
const YEAR_START = Date.UTC(2025, 0, 1);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function timed(db: Database, sql: string, params: unknown[], rounds: number): Promise<number> {
  await db.query(sql, params);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await db.query(sql, params);
    times.push(performance.now() - started);
  }
  return Math.round(median(times) * 100) / 100;
}

/** `samples` heart-rate-like samples over `sources` data sources of one user: one a second per source from 2025-01-01. */
export async function storageBenchmark(
  db: Database,
  { samples, sources, rounds }: { samples: number; sources: number; rounds: number },
): Promise<StorageResult> {
  await db.exec(ANCHOR_DDL);
  await db.exec("TRUNCATE wearables.samples; DELETE FROM wearables.data_sources; DELETE FROM wearables.users;");
  const [user] = await db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('bench@example.com') RETURNING id",
  );
  const refs: { id: string; key: number }[] = [];
  for (let s = 0; s < sources; s++) {
    const [row] = await db.query<{ id: string; key: number }>(
      "INSERT INTO wearables.data_sources (user_id, provider, device_model) VALUES ($1, 'garmin', $2) RETURNING id, key",
      [user?.id, `device ${s}`],
    );
    if (row) refs.push({ id: row.id, key: Number(row.key) });
  }
  const perSource = Math.ceil(samples / sources);
  const batch = 200_000;

  async function load(layout: "ours" | "anchor"): Promise<number> {
    const started = performance.now();
    for (const [s, ref] of refs.entries()) {
      for (let first = 0; first < perSource; first += batch) {
        const n = Math.min(batch, perSource - first);
        const lines: string[] = [];
        for (let i = first; i < first + n; i++) {
          const at = new Date(YEAR_START + i * 1_000).toISOString();
          const value = (60 + ((i * 7 + s * 13) % 90)).toString();
          lines.push(
            layout === "ours"
              ? `${ref.key}\t1\t${at}\t${value}\t60\t\\N\n`
              : `${uuidOf(s, i)}\t\\N\t${ref.id}\t${at}\t+01:00\t${value}\t1\t\\N\n`,
          );
        }
        await db.transaction((tx) =>
          tx.copyFrom(
            layout === "ours"
              ? "COPY wearables.samples (source_key, series_type, recorded_at, value, zone_offset, is_daily_total) FROM STDIN"
              : "COPY anchor.data_point_series (id, external_id, data_source_id, recorded_at, zone_offset, value, series_type_definition_id, is_daily_total) FROM STDIN",
            lines.join(""),
          ),
        );
      }
    }
    return (perSource * refs.length) / ((performance.now() - started) / 1000);
  }

  async function measure(layout: "ours" | "anchor"): Promise<LayoutResult> {
    const rate = await load(layout);
    const table = layout === "ours" ? "wearables.samples" : "anchor.data_point_series";
    await db.exec(`ANALYZE ${table}`);
    const [size] = await db.query<{ t: string; i: string }>(
      `SELECT pg_table_size('${table}')::text AS t, pg_indexes_size('${table}')::text AS i`,
    );
    const tableBytes = Number(size?.t);
    const indexBytes = Number(size?.i);
    const ref = refs[0] as { id: string; key: number };
    const dayFrom = new Date(YEAR_START + Math.floor(perSource / 2) * 1_000);
    const dayTo = new Date(dayFrom.getTime() + DAY);
    const yearTo = new Date(YEAR_START + 366 * DAY);
    const day =
      layout === "ours"
        ? await timed(
            db,
            `SELECT recorded_at, value FROM wearables.samples
             WHERE source_key = $1 AND series_type = 1 AND recorded_at >= $2 AND recorded_at < $3 ORDER BY recorded_at`,
            [ref.key, dayFrom, dayTo],
            rounds,
          )
        : await timed(
            db,
            `SELECT recorded_at, value FROM anchor.data_point_series
             WHERE data_source_id = $1 AND series_type_definition_id = 1 AND recorded_at >= $2 AND recorded_at < $3
             ORDER BY recorded_at`,
            [ref.id, dayFrom, dayTo],
            rounds,
          );
    const hourly =
      layout === "ours"
        ? await timed(
            db,
            `SELECT date_bin('1 hour', recorded_at, 'epoch') AS bucket, avg(value) FROM wearables.samples
             WHERE source_key = $1 AND series_type = 1 AND recorded_at >= $2 AND recorded_at < $3 GROUP BY 1 ORDER BY 1`,
            [ref.key, new Date(YEAR_START), yearTo],
            rounds,
          )
        : await timed(
            db,
            `SELECT date_bin('1 hour', recorded_at, 'epoch') AS bucket, avg(value) FROM anchor.data_point_series
             WHERE data_source_id = $1 AND series_type_definition_id = 1 AND recorded_at >= $2 AND recorded_at < $3
             GROUP BY 1 ORDER BY 1`,
            [ref.id, new Date(YEAR_START), yearTo],
            rounds,
          );
    const total = perSource * refs.length;
    return {
      layout,
      samples: total,
      bytesPerSample: Math.round(((tableBytes + indexBytes) / total) * 10) / 10,
      tableMiB: Math.round(tableBytes / 1024 / 1024),
      indexMiB: Math.round(indexBytes / 1024 / 1024),
      loadRowsPerSec: Math.round(rate),
      dayWindowMs: day,
      yearHourlyMs: hourly,
    };
  }

  const ours = await measure("ours");
  const anchor = await measure("anchor");
  await db.exec("DROP TABLE anchor.data_point_series; TRUNCATE wearables.samples;");
  return {
    samples: ours.samples,
    sources: refs.length,
    ours,
    anchor,
    sizeRatio: Math.round((anchor.bytesPerSample / ours.bytesPerSample) * 100) / 100,
  };
}

/** A deterministic uuid-shaped id per (source, sample). */
function uuidOf(source: number, i: number): string {
  const hex = (source * 1_000_000_000 + i).toString(16).padStart(15, "0");
  return `00000000-0000-4000-8${hex.slice(0, 3)}-${hex.slice(3, 15)}`;
}
