/** What imports wrote, comparable across databases and runs (for the import tests). */
import type { Queryable } from "@platform/kernel";

/** Everything an import writes, in a stable order (ids replaced by identities). */
export async function importSnapshot(db: Queryable) {
  const samples = await db.query(
    `SELECT d.device_model, d.original_source_name, s.series_type, s.recorded_at, s.value, s.zone_offset, s.is_daily_total
     FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
     ORDER BY 1 NULLS FIRST, 2 NULLS FIRST, 3, 4`,
  );
  const events = await db.query(
    `SELECT e.category, e.type, e.start_datetime, e.end_datetime, e.zone_offset, e.duration_seconds, d.device_model,
       to_jsonb(w) - 'event_id' AS workout, to_jsonb(z) - 'event_id' AS sleep
     FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
     LEFT JOIN wearables.workout_details w ON w.event_id = e.id LEFT JOIN wearables.sleep_details z ON z.event_id = e.id
     ORDER BY e.category, e.start_datetime`,
  );
  const sources = await db.query(
    `SELECT provider, device_model, software_version, source, device_type, original_source_name
     FROM wearables.data_sources ORDER BY 2 NULLS FIRST, 6 NULLS FIRST`,
  );
  const personal = await db.query("SELECT birth_date, sex FROM wearables.personal_records");
  // The nights whose scores jobs wait (kernel queue `wearables.scores`).
  const nights = await db.query(
    `SELECT (payload->>'night')::date AS night FROM platform.jobs
     WHERE queue = 'wearables.scores' AND state IN ('queued', 'active') ORDER BY 1`,
  );
  return { samples, events, sources, personal, nights };
}
