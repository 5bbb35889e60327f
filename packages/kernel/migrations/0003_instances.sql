-- The running platform processes (`platform start --role api|worker|all`): one row per process, written at its
-- start, its heartbeat_at renewed every few seconds, deleted at its stop. A row whose heartbeat is older than
-- the TTL (kernel/src/instances.ts) is a process that died without its stop: shown as gone, pruned later.
CREATE TABLE platform.instances (
  id text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('all', 'api', 'worker')),
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
