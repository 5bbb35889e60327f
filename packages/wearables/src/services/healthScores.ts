/**
 * `GET /users/{user_id}/health-scores`: provider and internal scores, newest first, paged by offset in the
 * cursor envelope's shape (the anchor's: `has_more = offset + page < total`, no cursors).
 */
import { currentProviderName } from "../domain/providers.ts";
import { optionalWindow } from "../domain/queryDates.ts";
import type { HealthScoreRow, HealthScoresRepository } from "../store/healthScoresRepository.ts";
import type { CursorEnvelope } from "./timeseries.ts";

export interface HealthScoresQuery {
  userId: string;
  startDate?: string | undefined;
  endDate?: string | undefined;
  category?: string | undefined;
  provider?: string | undefined;
  limit: number;
  offset: number;
}

export interface HealthScoreItem {
  id: string;
  category: string;
  value: number;
  qualifier: string | null;
  recorded_at: string;
  zone_offset: string | null;
  components: HealthScoreRow["components"];
  data_source_id: string | null;
  provider: string;
  event_record_id: string | null;
}

export function createHealthScoresService(scores: HealthScoresRepository) {
  return {
    /** @throws {InvalidQueryError} on a bad date or an inverted range. */
    async list(q: HealthScoresQuery): Promise<CursorEnvelope<HealthScoreItem>> {
      const { start, end } = optionalWindow(q.startDate, q.endDate);
      const provider = q.provider === undefined ? undefined : currentProviderName(q.provider);
      const { rows, total } = await scores.list({ ...q, provider, start, end });
      return {
        data: rows.map((r) => ({ ...r, value: Number(r.value), recorded_at: r.recorded_at.toISOString() })),
        pagination: {
          next_cursor: null,
          previous_cursor: null,
          has_more: q.offset + rows.length < total,
          total_count: total,
        },
        metadata: {
          resolution: null,
          sample_count: rows.length,
          start_time: start?.toISOString() ?? null,
          end_time: end?.toISOString() ?? null,
        },
      };
    },
  };
}

export type HealthScoresService = ReturnType<typeof createHealthScoresService>;
