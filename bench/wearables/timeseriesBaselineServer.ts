/**
 * The `timeseries` baseline: a bare Fastify route `GET /users/:user_id/timeseries` on the benchmark database
 * (the driver directly: no kernel `Database`, no auth, no schemas, no service code) running the repository's own
 * statements as the service does: raw, `rawSamplesSql` with `countSamplesSql` beside it; aggregated,
 * `bucketSql` over the same growing windows (`bucketWindows`). ISO dates and one type only; the cursor is
 * `after=<at>|<source key>|<type>` in plain text. Answers `{data, next_cursor}`. Prints READY {url}.
 */

import Fastify from "fastify";
import { seriesTypeByCode } from "../../packages/wearables/src/domain/seriesTypes.ts";
import {
  BUCKET_MINUTES,
  bucketWindows,
  type Resolution,
} from "../../packages/wearables/src/domain/timeseriesResolution.ts";
import {
  bucketSql,
  countSamplesSql,
  rawSamplesSql,
  type SamplePosition,
} from "../../packages/wearables/src/store/timeseriesRepository.ts";
import { openBaselineDriver, serveBaseline } from "../lib/baselineServer.ts";
import { timeseriesBench } from "./timeseriesDatabase.ts";

const driver = await openBaselineDriver(timeseriesBench.url(), timeseriesBench.pgliteDir);

type Query = {
  start_time: string;
  end_time: string;
  types: string;
  resolution?: Resolution;
  limit?: string;
  after?: string;
};
type Row = { at: string; source_key: number; series_type: number };

const app = Fastify();
app.get<{ Params: { user_id: string }; Querystring: Query }>("/users/:user_id/timeseries", async (request) => {
  const q = request.query;
  const limit = Number(q.limit ?? 50);
  const [at, sourceKey, seriesType] = q.after?.split("|") ?? [];
  const after: SamplePosition | null =
    at === undefined ? null : { at, sourceKey: Number(sourceKey), seriesType: Number(seriesType), direction: "next" };
  const base = {
    userId: request.params.user_id,
    seriesTypes: [seriesTypeByCode(q.types)?.id as number],
    start: new Date(q.start_time),
    end: new Date(q.end_time),
  };
  let rows: Row[];
  let total: number | null = null;
  if ((q.resolution ?? "raw") === "raw") {
    const raw = rawSamplesSql({ ...base, after, backward: false, take: limit + 1 });
    const count = countSamplesSql(base);
    const [page, counted] = await Promise.all([
      driver.query(raw.text, raw.values) as Promise<Row[]>,
      driver.query(count.text, count.values) as Promise<{ n: string }[]>,
    ]);
    rows = page;
    total = Number(counted[0]?.n);
  } else {
    const minutes = BUCKET_MINUTES[q.resolution as Exclude<Resolution, "raw">];
    rows = [];
    const from = Math.max(base.start.getTime(), after ? new Date(after.at).getTime() : 0);
    let first = true;
    for (const w of bucketWindows(from, base.end.getTime(), minutes, limit + 1)) {
      const sql = bucketSql(
        {
          ...base,
          start: new Date(w.start),
          end: new Date(w.end),
          after: first ? after : null,
          backward: false,
          take: limit + 1 - rows.length,
        },
        minutes,
      );
      first = false;
      rows.push(...((await driver.query(sql.text, sql.values)) as Row[]));
      if (rows.length > limit) break;
    }
  }
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  const next = rows.length > limit && last ? `${last.at}|${last.source_key}|${last.series_type}` : null;
  return { data, total_count: total, next_cursor: next };
});
await serveBaseline(app, driver);
