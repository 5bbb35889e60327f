-- Imports and internal scores run on the kernel's job layer (platform.jobs, kernel migration 0002): the job
-- rows carry the claims, locks, retries and dead state that wearables kept itself until now.

-- Import records stay: they are the import's user-facing status (progress, checkpoint, errors). Their lease
-- columns go (the kernel job of queue `wearables.import`, singleton key = the import's id, holds the claim).
DROP INDEX wearables.import_jobs_pending_idx;
ALTER TABLE wearables.import_jobs DROP COLUMN lease_holder, DROP COLUMN lease_expires_at;
-- The uploaded file is stored in the database (below), so that whichever worker runs the job, on any
-- instance, reads it; `file_path` only remains for imports queued before this migration (a file on the disk
-- of the instance that received it).
ALTER TABLE wearables.import_jobs ALTER COLUMN file_path DROP NOT NULL;

-- An upload's bytes, in parts of at most 1 MiB, deleted when its import ends.
CREATE TABLE wearables.import_files (
  import_id uuid NOT NULL REFERENCES wearables.import_jobs (id) ON DELETE CASCADE,
  part integer NOT NULL CHECK (part >= 0),
  data bytea NOT NULL,
  PRIMARY KEY (import_id, part)
);

-- Imports in progress become kernel jobs (they resume from their checkpoint).
INSERT INTO platform.jobs (queue, payload, singleton_key)
SELECT 'wearables.import', jsonb_build_object('importId', id), id::text
FROM wearables.import_jobs WHERE state IN ('queued', 'processing')
ORDER BY created_at
ON CONFLICT DO NOTHING;

-- The nights waiting for their internal scores become kernel jobs of queue `wearables.scores`, one per
-- (user, night), singleton key `<user id>:<night>`; the recurring pass that drained `score_work` goes.
INSERT INTO platform.jobs (queue, payload, singleton_key)
SELECT 'wearables.scores', jsonb_build_object('userId', user_id, 'night', night::text), user_id::text || ':' || night::text
FROM wearables.score_work
ORDER BY night, user_id
ON CONFLICT DO NOTHING;
DELETE FROM platform.jobs WHERE queue = 'wearables.scores' AND schedule IS NOT NULL AND state = 'queued';
DELETE FROM platform.job_schedules WHERE name = 'wearables.scores';
DROP TABLE wearables.score_work;
