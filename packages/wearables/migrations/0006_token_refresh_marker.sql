-- Refresh tokens that rotate are single-use: once the vendor has answered a refresh, the old one is void, and
-- a process killed before storing the answer loses the connection. `refresh_started_at` is set (under the
-- connection's refresh lease) just before the refresh request and cleared by the statement that stores its
-- answer: a later holder that finds it set knows a refresh was interrupted, and a refusal of the old token then
-- says so (`status_reason = 'refresh_interrupted'`) instead of passing for a generic failure.
-- `status_reason` is why a connection left `active` (`refresh_failed`, `refresh_interrupted`, `deauthorized`);
-- the anchor's status values (`active`, `revoked`, `expired`) are unchanged, and an authorization clears both.
ALTER TABLE wearables.user_connections
  ADD COLUMN refresh_started_at timestamptz,
  ADD COLUMN status_reason varchar(64);
