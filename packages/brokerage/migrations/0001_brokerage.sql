-- The brokerage: end users with their live and paper accounts, the OAuth 2.0 authorization server's
-- clients, codes, tokens and login sessions, and operator-issued key pairs. Every secret is stored as a
-- hash only (argon2id for passwords, SHA-256 for high-entropy random secrets).
CREATE SCHEMA IF NOT EXISTS brokerage;

CREATE TABLE brokerage.users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  -- argon2id, PHC string format ($argon2id$v=19$m=…,t=…,p=…$salt$hash)
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON brokerage.users (lower(email));

-- One live account and one or more paper accounts per user (Alpaca account object fields we keep).
CREATE TABLE brokerage.accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES brokerage.users (id) ON DELETE CASCADE,
  env text NOT NULL CHECK (env IN ('live', 'paper')),
  account_number text NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE',
  currency text NOT NULL DEFAULT 'USD',
  cash numeric(20, 2) NOT NULL CHECK (cash >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_account_number_key ON brokerage.accounts (account_number);
CREATE UNIQUE INDEX accounts_one_live_per_user ON brokerage.accounts (user_id) WHERE env = 'live';
CREATE INDEX accounts_user_idx ON brokerage.accounts (user_id, env, created_at);

-- Registered applications. client_id is public; the secret is shown once and stored as SHA-256.
CREATE TABLE brokerage.oauth_clients (
  client_id text PRIMARY KEY,
  name text NOT NULL,
  secret_hash bytea NOT NULL,
  -- Matched exactly (RFC 9700 §4.1.3): no prefix, wildcard or normalisation.
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- Authorization codes: random, single use, 10 minutes, bound to client, redirect URI and accounts.
CREATE TABLE brokerage.authorization_codes (
  code_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES brokerage.oauth_clients (client_id),
  user_id uuid NOT NULL REFERENCES brokerage.users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  scope text NOT NULL,
  live_account_id uuid REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  paper_account_id uuid REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  -- PKCE (RFC 7636), S256 only; null when the request carried no challenge.
  code_challenge text,
  expires_at timestamptz NOT NULL,
  -- Set by the one exchange that succeeds; a second exchange finds it set (replay).
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (live_account_id IS NOT NULL OR paper_account_id IS NOT NULL)
);

-- Access tokens: random, long-lived until revoked, bound to at most one live and one paper account.
CREATE TABLE brokerage.access_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash bytea NOT NULL,
  client_id text NOT NULL REFERENCES brokerage.oauth_clients (client_id),
  user_id uuid NOT NULL REFERENCES brokerage.users (id) ON DELETE CASCADE,
  -- The code it was issued from: a replayed code revokes every token issued from it.
  code_hash bytea NOT NULL,
  scope text NOT NULL,
  live_account_id uuid REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  paper_account_id uuid REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX access_tokens_token_hash_key ON brokerage.access_tokens USING btree (token_hash);
CREATE INDEX access_tokens_code_idx ON brokerage.access_tokens (code_hash);
CREATE INDEX access_tokens_user_idx ON brokerage.access_tokens (user_id, client_id) WHERE revoked_at IS NULL;

-- Login sessions of the authorization pages (cookie = random id; only its hash is stored).
CREATE TABLE brokerage.sessions (
  id_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES brokerage.users (id) ON DELETE CASCADE,
  -- Per-session secret the CSRF tokens of its forms are derived from (HMAC), random.
  csrf_secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_idx ON brokerage.sessions (expires_at);

-- Operator-issued key pairs (APCA-API-KEY-ID / APCA-API-SECRET-KEY) for one account.
CREATE TABLE brokerage.api_key_pairs (
  key_id text PRIMARY KEY,
  secret_hash bytea NOT NULL,
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_key_pairs_account_idx ON brokerage.api_key_pairs (account_id);
