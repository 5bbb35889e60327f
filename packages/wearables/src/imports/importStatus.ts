/** An import job as the API and the CLI show it (`GET /users/{user_id}/imports/{task_id}`). */
import type { ImportError, ImportJobRow, ImportKind, ImportState } from "../store/importJobsRepository.ts";

export interface ImportStatus {
  task_id: string;
  user_id: string;
  kind: ImportKind;
  state: ImportState;
  file_name: string | null;
  file_bytes: number;
  bytes_read: number;
  items_processed: number;
  samples_written: number;
  events_written: number;
  errors: ImportError[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export const toImportStatus = (job: ImportJobRow): ImportStatus => ({
  task_id: job.id,
  user_id: job.user_id,
  kind: job.kind,
  state: job.state,
  file_name: job.file_name,
  file_bytes: job.file_bytes,
  bytes_read: job.bytes_read,
  items_processed: job.items_processed,
  samples_written: job.samples_written,
  events_written: job.events_written,
  errors: job.errors,
  created_at: job.created_at.toISOString(),
  started_at: job.started_at?.toISOString() ?? null,
  finished_at: job.finished_at?.toISOString() ?? null,
  updated_at: job.updated_at.toISOString(),
});
