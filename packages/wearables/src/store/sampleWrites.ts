/**
 * The samples half of the health data writer (healthDataWriter.ts), in the caller's transaction.
 *
 * Deduplication is by (data source, series type, instant): a sample written again replaces the stored value
 * (the anchor's upsert) and an unchanged one is not rewritten, so a page or chunk written twice changes
 * nothing. `INSERT … ON CONFLICT` pays a speculative insertion per row (an index probe, a heap insert with a
 * token, its confirmation, a WAL record per row): on a fresh import it cost three times the COPY of the same
 * rows. So a large batch asks first, with one index probe per series type, whether any row is stored in its
 * key ranges: when none is (an import's or a sync's new data), it is COPYed straight into the table
 * (PostgreSQL's multi-insert path, as fast as a raw load); otherwise (a page or chunk written again, an
 * overlapping window) it takes the upsert, as before. A row stored by a concurrent writer between the probe
 * and the COPY fails the COPY with a unique violation; it is undone to a savepoint and the batch takes the
 * upsert, so the outcome is the upsert's in every case. (Splitting a batch into its stored and new rows was
 * tried: reading back the stored keys made a replayed page slower than the upsert alone.)
 */
import { createCopyLines, type Queryable } from "@platform/kernel";

export interface SampleRow {
  seriesType: number;
  /** Epoch ms. */
  recordedAt: number;
  value: number;
  zoneOffsetMinutes?: number | null;
  isDailyTotal?: boolean | null;
}

/** Batches at least this large are written with COPY; smaller ones as one statement with arrays. */
const COPY_THRESHOLD = 256;

/** The dedup rule: a sample written again replaces the stored one, and an unchanged one is not rewritten. */
const UPSERT_SAMPLE = `ON CONFLICT (source_key, series_type, recorded_at) DO UPDATE
  SET value = EXCLUDED.value, zone_offset = EXCLUDED.zone_offset, is_daily_total = EXCLUDED.is_daily_total
  WHERE (s.value, s.zone_offset, s.is_daily_total) IS DISTINCT FROM
    (EXCLUDED.value, EXCLUDED.zone_offset, EXCLUDED.is_daily_total)`;

const UNIQUE_VIOLATION = "23505";

/** Writes the rows of one data source; answers how many rows were new or changed. */
export async function writeSampleRows(tx: Queryable, sourceKey: number, samples: readonly SampleRow[]) {
  if (samples.length === 0) return 0;
  const rows = lastOfEachKey(samples);
  if (rows.length < COPY_THRESHOLD) return upsertWithArrays(tx, sourceKey, rows);
  // COPY text has no room for them (the arrays statement sends NaN as PostgreSQL's own NaN, as it always has).
  for (const r of rows)
    if (!Number.isFinite(r.value)) throw new RangeError(`sample value ${r.value} is not a finite number`);
  if (!(await anyStored(tx, sourceKey, rows)) && (await copyNew(tx, sourceKey, rows))) return rows.length;
  return upsertWithCopy(tx, sourceKey, rows);
}

/**
 * One row per (series type, instant), the last one given (PostgreSQL refuses to update a row twice in one
 * statement), sorted by key: the index is then filled in order, as a raw load of sorted rows fills it.
 */
function lastOfEachKey(samples: readonly SampleRow[]): SampleRow[] {
  const byType = new Map<number, Map<number, SampleRow>>();
  for (const s of samples) {
    let instants = byType.get(s.seriesType);
    if (!instants) {
      instants = new Map();
      byType.set(s.seriesType, instants);
    }
    instants.set(s.recordedAt, s);
  }
  const rows: SampleRow[] = [];
  for (const instants of byType.values()) for (const r of instants.values()) rows.push(r);
  let sorted = true;
  for (let i = 1; i < rows.length && sorted; i++)
    sorted = compareKeys(rows[i - 1] as SampleRow, rows[i] as SampleRow) < 0;
  return sorted ? rows : rows.sort(compareKeys);
}

const compareKeys = (a: SampleRow, b: SampleRow) => a.seriesType - b.seriesType || a.recordedAt - b.recordedAt;

/** Whether a row is stored already in one of `rows`' (sorted) key ranges: one index probe per series type. */
async function anyStored(tx: Queryable, sourceKey: number, rows: readonly SampleRow[]): Promise<boolean> {
  const types: number[] = [];
  const from: string[] = [];
  const to: string[] = [];
  for (let i = 0; i < rows.length; ) {
    const type = (rows[i] as SampleRow).seriesType;
    const first = (rows[i] as SampleRow).recordedAt;
    while (i + 1 < rows.length && (rows[i + 1] as SampleRow).seriesType === type) i++;
    types.push(type);
    from.push(new Date(first).toISOString());
    to.push(new Date((rows[i] as SampleRow).recordedAt).toISOString());
    i++;
  }
  const [row] = await tx.query<{ stored: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM unnest($2::smallint[], $3::timestamptz[], $4::timestamptz[]) AS r(t, lo, hi)
       WHERE EXISTS (SELECT 1 FROM wearables.samples s
                     WHERE s.source_key = $1 AND s.series_type = r.t AND s.recorded_at BETWEEN r.lo AND r.hi)) AS stored`,
    [sourceKey, types, from, to],
  );
  return row?.stored === true;
}

/** COPYs rows none of whose keys was stored; false (and nothing written) when a concurrent writer stored one since. */
async function copyNew(tx: Queryable, sourceKey: number, rows: readonly SampleRow[]): Promise<boolean> {
  await tx.query("SAVEPOINT wearables_samples_copy");
  try {
    await tx.copyFrom(
      "COPY wearables.samples (source_key, series_type, recorded_at, value, zone_offset, is_daily_total) FROM STDIN",
      copyText(rows, `${sourceKey}\t`),
    );
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await tx.query("ROLLBACK TO SAVEPOINT wearables_samples_copy");
    return false;
  }
  await tx.query("RELEASE SAVEPOINT wearables_samples_copy");
  return true;
}

async function upsertWithArrays(tx: Queryable, sourceKey: number, rows: readonly SampleRow[]): Promise<number> {
  const [result] = await tx.query<{ n: number }>(
    `WITH written AS (
       INSERT INTO wearables.samples AS s (source_key, series_type, recorded_at, value, zone_offset, is_daily_total)
       SELECT $1, t, a, v, z, d
       FROM unnest($2::smallint[], $3::timestamptz[], $4::real[], $5::smallint[], $6::boolean[]) AS u(t, a, v, z, d)
       ${UPSERT_SAMPLE}
       RETURNING 1)
     SELECT count(*)::int AS n FROM written`,
    [
      sourceKey,
      rows.map((r) => r.seriesType),
      rows.map((r) => new Date(r.recordedAt).toISOString()),
      rows.map((r) => r.value),
      rows.map((r) => r.zoneOffsetMinutes ?? null),
      rows.map((r) => r.isDailyTotal ?? null),
    ],
  );
  return result?.n ?? 0;
}

/** The upsert of many rows: COPY into a transaction-local staging table, then one INSERT … SELECT. */
async function upsertWithCopy(tx: Queryable, sourceKey: number, rows: readonly SampleRow[]): Promise<number> {
  // Emptied at every commit, so a pooled connection never carries rows into another transaction.
  await tx.query(
    `CREATE TEMP TABLE IF NOT EXISTS wearables_samples_in (series_type smallint, recorded_at timestamptz, value real,
       zone_offset smallint, is_daily_total boolean) ON COMMIT DELETE ROWS`,
  );
  await tx.query("TRUNCATE wearables_samples_in");
  await tx.copyFrom(
    "COPY wearables_samples_in (series_type, recorded_at, value, zone_offset, is_daily_total) FROM STDIN",
    copyText(rows, ""),
  );
  const [result] = await tx.query<{ n: number }>(
    `WITH written AS (
       INSERT INTO wearables.samples AS s (source_key, series_type, recorded_at, value, zone_offset, is_daily_total)
       SELECT $1, series_type, recorded_at, value, zone_offset, is_daily_total FROM wearables_samples_in
       ${UPSERT_SAMPLE}
       RETURNING 1)
     SELECT count(*)::int AS n FROM written`,
    [sourceKey],
  );
  return result?.n ?? 0;
}

const copyBool = (v: boolean | null | undefined) => (v === true ? "t" : v === false ? "f" : "\\N");

/** The rows in COPY text form, each line starting with `prefix`. */
function copyText(rows: readonly SampleRow[], prefix: string): Buffer {
  const lines = createCopyLines(rows.length * (48 + prefix.length));
  for (const r of rows) {
    const zone = r.zoneOffsetMinutes ?? null;
    lines.push(
      `${prefix}${r.seriesType}\t${new Date(r.recordedAt).toISOString()}\t${r.value}\t${zone === null ? "\\N" : zone}\t${copyBool(r.isDailyTotal)}\n`,
    );
  }
  return lines.bytes();
}
