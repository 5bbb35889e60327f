-- Users of the wearables API, and the provider connections their sync state is derived from
-- (columns as in Open Wearables' `user` and `user_connection` tables).
CREATE SCHEMA IF NOT EXISTS wearables;

CREATE TABLE wearables.users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  first_name varchar(100),
  last_name varchar(100),
  email text,
  external_user_id varchar(255),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Emails are unique regardless of case; the exact-email filter uses this index too.
CREATE UNIQUE INDEX users_email_key ON wearables.users (lower(email));
CREATE UNIQUE INDEX users_external_user_id_key ON wearables.users (external_user_id);
CREATE INDEX users_created_at_idx ON wearables.users (created_at, id);

CREATE TABLE wearables.user_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  provider varchar(64) NOT NULL,
  provider_user_id text,
  provider_username text,
  access_token_encrypted bytea,
  refresh_token_encrypted bytea,
  token_expires_at timestamptz,
  scope text,
  status varchar(64) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'expired')),
  last_synced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, provider)
);
CREATE INDEX user_connections_provider_user_idx ON wearables.user_connections (provider, provider_user_id)
  WHERE status = 'active';
