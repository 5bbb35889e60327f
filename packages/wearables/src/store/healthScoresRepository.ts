/** SQL for the health scores list (`wearables.health_scores`): filters, newest first, offset paging. */
import type { Queryable } from "@platform/kernel";

export interface HealthScoreRow {
  id: string;
  category: string;
  value: string;
  qualifier: string | null;
  recorded_at: Date;
  zone_offset: string | null;
  components: Record<string, { value?: number | null; qualifier?: string | null }> | null;
  data_source_id: string | null;
  provider: string;
  /** The sleep event a sleep score is of (`sleep_event_id`). */
  event_record_id: string | null;
}

export interface HealthScoreQuery {
  userId: string;
  start: Date | null;
  end: Date | null;
  category?: string | undefined;
  provider?: string | undefined;
  limit: number;
  offset: number;
}

function where(q: HealthScoreQuery) {
  const values: unknown[] = [q.userId];
  const conditions = ["user_id = $1"];
  const add = (condition: string, value: unknown) => {
    values.push(value);
    conditions.push(condition.replace("?", `$${values.length}`));
  };
  if (q.start) add("recorded_at >= ?", q.start);
  if (q.end) add("recorded_at < ?", q.end);
  if (q.category) add("category = ?", q.category);
  if (q.provider) add("provider = ?", q.provider);
  return { sql: conditions.join(" AND "), values };
}

export function createHealthScoresRepository(db: Queryable) {
  return {
    async list(q: HealthScoreQuery): Promise<{ rows: HealthScoreRow[]; total: number }> {
      const w = where(q);
      const n = w.values.length;
      const [rows, count] = await Promise.all([
        db.query<HealthScoreRow>(
          `SELECT id, category, value, qualifier, recorded_at, zone_offset, components, data_source_id, provider,
                  sleep_event_id AS event_record_id
           FROM wearables.health_scores WHERE ${w.sql}
           ORDER BY recorded_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...w.values, q.limit, q.offset],
        ),
        db.query<{ n: string | number }>(`SELECT count(*) AS n FROM wearables.health_scores WHERE ${w.sql}`, w.values),
      ]);
      return { rows, total: Number(count[0]?.n ?? 0) };
    },
  };
}

export type HealthScoresRepository = ReturnType<typeof createHealthScoresRepository>;
