-- The job and lease layer of every service (kernel/src/jobs/).
--
-- Durable jobs: a row per job. `queued` rows are taken FOR UPDATE SKIP LOCKED once `run_at` has come;
-- a taken row is `active` until `locked_until` (the handler's timeout and a grace), after which it is
-- queued again or, its attempts spent, `dead`. `claims` counts every take: a handler's fenced writes name
-- the claim they belong to, so a worker whose claim was lost cannot complete the job.
CREATE TABLE platform.jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'queued'
    CHECK (state IN ('queued', 'active', 'completed', 'dead', 'cancelled')),
  singleton_key text,
  -- The recurring schedule this job is an occurrence of (its run_at is the period's start).
  schedule text,
  run_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  claims integer NOT NULL DEFAULT 0,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one queued or active job per (queue, singleton key): enqueue answers "already there" through it.
CREATE UNIQUE INDEX jobs_singleton_idx ON platform.jobs (queue, singleton_key)
  WHERE singleton_key IS NOT NULL AND state IN ('queued', 'active');
-- One occurrence per period of a recurring schedule, whichever worker enqueues it.
CREATE UNIQUE INDEX jobs_schedule_occurrence_idx ON platform.jobs (schedule, run_at) WHERE schedule IS NOT NULL;
-- What the workers take, and what the reaper frees.
CREATE INDEX jobs_due_idx ON platform.jobs (queue, run_at, id) WHERE state = 'queued';
CREATE INDEX jobs_locked_idx ON platform.jobs (locked_until) WHERE state = 'active';
CREATE INDEX jobs_listing_idx ON platform.jobs (queue, id);
-- What the workers prune once it is old enough (see the worker's keepCompletedMs and keepDeadMs).
CREATE INDEX jobs_finished_idx ON platform.jobs (finished_at) WHERE state IN ('completed', 'cancelled', 'dead');

-- Recurring jobs: one row per schedule; the worker that locks a due row enqueues the period's occurrence and
-- moves `next_run_at` to the next period's start in the same transaction.
CREATE TABLE platform.job_schedules (
  name text PRIMARY KEY,
  queue text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  every_ms bigint NOT NULL CHECK (every_ms > 0),
  offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0 AND offset_ms < every_ms),
  max_attempts integer NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
  next_run_at timestamptz NOT NULL,
  last_run_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Leases: one holder per name. A row is never deleted (a release clears the holder), so `token` only grows:
-- it is the fencing token a holder's writes carry, one more at every change of holder.
CREATE TABLE platform.leases (
  name text PRIMARY KEY,
  holder text,
  token bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now(),
  renewed_at timestamptz NOT NULL DEFAULT now()
);
