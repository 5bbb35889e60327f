-- API keys of every service. Only a SHA-256 hash of the secret part is stored; the public `prefix`
-- (the key's first characters) finds the row, the hash is then compared in constant time.
CREATE TABLE platform.api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  service text NOT NULL,
  name text NOT NULL,
  prefix text NOT NULL UNIQUE,
  secret_hash bytea NOT NULL,
  plan text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_service_idx ON platform.api_keys (service, created_at);
