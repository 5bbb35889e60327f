-- Outgoing webhooks: endpoints, the messages written in the transactions of the data that causes them (the
-- outbox), one delivery per (endpoint, message), and every attempt at it.

CREATE TABLE wearables.webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url text NOT NULL,
  description text,
  -- Event types the endpoint receives (a group name covers its series events); null: every type.
  filter_types text[],
  -- Only this user's events; null: every user's.
  user_id uuid REFERENCES wearables.users (id) ON DELETE CASCADE,
  -- Signing secrets (`whsec_…`) sealed by the kernel's secret box; the previous one signs too until it expires.
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  disabled boolean NOT NULL DEFAULT false,
  disabled_at timestamptz,
  -- The first failed attempt since the last success (Svix disables after five days of nothing but failures).
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The outbox: `key` orders messages; `id` (`msg_…`) is what receivers see in webhook-id, the same on every
-- attempt and recovery; `event_id` is the cause's idempotency key (a second message for it is never written).
CREATE TABLE wearables.webhook_messages (
  key bigserial PRIMARY KEY,
  id varchar(40) NOT NULL UNIQUE,
  event_type varchar(120) NOT NULL,
  event_id varchar(400) NOT NULL UNIQUE,
  user_id uuid,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_messages_created_idx ON wearables.webhook_messages (created_at);

-- Where a message stands with an endpoint. `status`: pending (an attempt is queued), success, failed (every
-- attempt spent, or the endpoint went away).
CREATE TABLE wearables.webhook_deliveries (
  endpoint_id uuid NOT NULL REFERENCES wearables.webhook_endpoints (id) ON DELETE CASCADE,
  message_key bigint NOT NULL REFERENCES wearables.webhook_messages (key) ON DELETE CASCADE,
  status varchar(16) NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (endpoint_id, message_key)
);
CREATE INDEX webhook_deliveries_failed_idx ON wearables.webhook_deliveries (endpoint_id, created_at)
  WHERE status = 'failed';

-- Every attempt, as Svix lists them: `status` 0 success, 2 fail; `trigger_type` 0 scheduled, 1 manual.
CREATE TABLE wearables.webhook_attempts (
  key bigserial PRIMARY KEY,
  id varchar(40) NOT NULL UNIQUE,
  endpoint_id uuid NOT NULL REFERENCES wearables.webhook_endpoints (id) ON DELETE CASCADE,
  message_key bigint NOT NULL REFERENCES wearables.webhook_messages (key) ON DELETE CASCADE,
  url text NOT NULL,
  response text NOT NULL,
  response_status_code integer NOT NULL,
  response_duration_ms integer NOT NULL,
  status smallint NOT NULL,
  trigger_type smallint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_endpoint_idx ON wearables.webhook_attempts (endpoint_id, key);
