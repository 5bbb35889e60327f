/**
 * The raw-COPY baseline of the write benchmarks (`import`, `sync`): the sample rows a run wrote, dumped in COPY
 * text form in primary key order and the table emptied, then COPYed back in batches of `batch` rows, each
 * batch a transaction of its own (no staging table, no upsert, no dedup, no progress row).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Database } from "@platform/kernel";

export const SAMPLE_COLUMNS = "source_key, series_type, recorded_at, value, zone_offset, is_daily_total";

/** Writes every sample row to `file` in COPY text form (primary key order), then empties the table. */
export async function dumpAndEmptySamples(db: Database, file: string): Promise<number> {
  const out = createWriteStream(file);
  let rows = 0;
  let after: [number, number, string] = [-1, -1, "-infinity"];
  for (;;) {
    const [page] = await db.query<{ text: string | null; n: number; k: number; t: number; at: string }>(
      `WITH page AS (
         SELECT * FROM wearables.samples WHERE (source_key, series_type, recorded_at) > ($1, $2, $3::timestamptz)
         ORDER BY source_key, series_type, recorded_at LIMIT 200000)
       SELECT string_agg(concat_ws(E'\\t', source_key, series_type, recorded_at, value, coalesce(zone_offset::text, '\\N'),
                coalesce(is_daily_total::text, '\\N')), E'\\n' ORDER BY source_key, series_type, recorded_at) AS text,
              count(*)::int AS n,
              (array_agg(source_key ORDER BY source_key DESC, series_type DESC, recorded_at DESC))[1] AS k,
              (array_agg(series_type ORDER BY source_key DESC, series_type DESC, recorded_at DESC))[1] AS t,
              (array_agg(recorded_at::text ORDER BY source_key DESC, series_type DESC, recorded_at DESC))[1] AS at
       FROM page`,
      after,
    );
    if (!page?.text) break;
    if (!out.write(`${page.text}\n`)) await new Promise<void>((r) => out.once("drain", () => r()));
    rows += Number(page.n);
    after = [Number(page.k), Number(page.t), page.at];
  }
  await new Promise<void>((r) => out.end(() => r()));
  await db.exec("TRUNCATE wearables.samples");
  if (db.driver === "postgres") await db.exec("CHECKPOINT");
  return rows;
}

/** COPYs the rows of `file` (as `dumpAndEmptySamples` wrote them) into the table; answers how many. */
export async function copySamplesFrom(db: Database, file: string, batch = 50_000): Promise<number> {
  let rows = 0;
  let lines: string[] = [];
  const flush = async () => {
    const text = lines.join("");
    lines = [];
    await db.transaction((tx) => tx.copyFrom(`COPY wearables.samples (${SAMPLE_COLUMNS}) FROM STDIN`, text));
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    lines.push(`${line}\n`);
    rows++;
    if (lines.length >= batch) await flush();
  }
  if (lines.length > 0) await flush();
  return rows;
}
