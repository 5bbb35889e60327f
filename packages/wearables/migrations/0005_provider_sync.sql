-- Provider connections made through the vendors' OAuth, their sync runs, and the sync status events.

-- Tokens are sealed by the kernel's secret box (AES-256-GCM, the key named in the value: `v1.<key id>.…`), as
-- text. The bytea columns of 0001 were never written.
ALTER TABLE wearables.user_connections
  DROP COLUMN access_token_encrypted,
  DROP COLUMN refresh_token_encrypted,
  ADD COLUMN access_token_sealed text,
  ADD COLUMN refresh_token_sealed text,
  -- The span of time synced so far, [synced_from, synced_until): a live sync fetches from its end, a
  -- historical one only what lies before its start (syncs keep it one contiguous span).
  ADD COLUMN synced_from timestamptz,
  ADD COLUMN synced_until timestamptz;

-- An authorization in progress (the anchor keeps `oauth_state:{state}` in Redis for 900 s). The state is a
-- bearer secret: only its SHA-256 is stored. A row is deleted when the callback uses it.
CREATE TABLE wearables.oauth_states (
  state_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  provider varchar(64) NOT NULL,
  redirect_uri text,
  code_verifier_sealed text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_states_expires_idx ON wearables.oauth_states (expires_at);

-- One sync of one connection (pull, push-triggered pull, historical backfill): its window, where it is
-- (`kind_index`, `cursor`: the checkpoint a resumed job continues from) and its counts.
CREATE TABLE wearables.sync_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  connection_id uuid REFERENCES wearables.user_connections (id) ON DELETE SET NULL,
  provider varchar(64) NOT NULL,
  source varchar(32) NOT NULL CHECK (source IN ('pull', 'webhook', 'sdk', 'backfill', 'xml_import', 'linked_account')),
  scope varchar(16) NOT NULL CHECK (scope IN ('historical', 'live')),
  stage varchar(16) NOT NULL CHECK (stage IN ('queued', 'started', 'fetching', 'processing', 'saving', 'completed', 'failed', 'cancelled')),
  status varchar(16) NOT NULL CHECK (status IN ('in_progress', 'success', 'partial', 'failed', 'cancelled', 'skipped', 'unfinished', 'stale')),
  kinds text[] NOT NULL,
  kind_index integer NOT NULL DEFAULT 0,
  cursor text,
  window_start timestamptz NOT NULL,
  window_end timestamptz NOT NULL,
  items_processed integer NOT NULL DEFAULT 0,
  items_inserted integer NOT NULL DEFAULT 0,
  message text,
  error text,
  started_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sync_runs_user_idx ON wearables.sync_runs (user_id, created_at DESC);
CREATE INDEX sync_runs_created_idx ON wearables.sync_runs (created_at DESC);

-- What each run went through, in order (`/sync/recent`, the `/sync/stream` of server-sent events). `seq`
-- orders them across instances.
CREATE TABLE wearables.sync_events (
  seq bigserial PRIMARY KEY,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  run_id uuid NOT NULL REFERENCES wearables.sync_runs (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  stage varchar(16) NOT NULL,
  status varchar(16) NOT NULL,
  message text,
  progress double precision,
  items_processed integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sync_events_user_idx ON wearables.sync_events (user_id, seq);
