-- SpokePool events of every indexed chain, the block hashes the indexer has seen (for reorg checks),
-- and each chain's checkpoint. Deposit status is derived from these rows at read time
-- (see src/domain/depositStatus.ts): pending, filled, slowFillRequested, expired (and refunded later).
CREATE SCHEMA IF NOT EXISTS crosschain;

CREATE TABLE crosschain.chains (
  chain_id bigint PRIMARY KEY,
  spoke_pool bytea NOT NULL,
  genesis_hash bytea NOT NULL,
  next_block bigint NOT NULL,
  start_block bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Hashes of blocks the indexer stored something from, and of each range's last block.
CREATE TABLE crosschain.blocks (
  chain_id bigint NOT NULL,
  number bigint NOT NULL,
  hash bytea NOT NULL,
  timestamp bigint NOT NULL,
  PRIMARY KEY (chain_id, number)
);

CREATE TABLE crosschain.deposits (
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  destination_chain_id bigint NOT NULL,
  -- The indexer's relay hash (with messageHash), which a FilledRelay on the destination also yields.
  relay_hash bytea NOT NULL,
  depositor bytea NOT NULL,
  recipient bytea NOT NULL,
  exclusive_relayer bytea NOT NULL,
  input_token bytea NOT NULL,
  output_token bytea NOT NULL,
  input_amount numeric(78) NOT NULL,
  output_amount numeric(78) NOT NULL,
  quote_timestamp bigint NOT NULL,
  fill_deadline bigint NOT NULL,
  exclusivity_deadline bigint NOT NULL,
  message bytea NOT NULL,
  message_hash bytea NOT NULL,
  integrator_id text,
  tx_hash bytea NOT NULL,
  tx_index integer NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_timestamp bigint NOT NULL,
  PRIMARY KEY (origin_chain_id, deposit_id)
);
CREATE UNIQUE INDEX deposits_relay_hash_idx ON crosschain.deposits (relay_hash);
CREATE INDEX deposits_tx_idx ON crosschain.deposits (tx_hash, log_index);
CREATE INDEX deposits_depositor_idx ON crosschain.deposits (depositor, block_timestamp DESC);
CREATE INDEX deposits_recipient_idx ON crosschain.deposits (recipient, block_timestamp DESC);
CREATE INDEX deposits_time_idx ON crosschain.deposits (block_timestamp DESC, origin_chain_id, deposit_id);
CREATE INDEX deposits_block_idx ON crosschain.deposits (origin_chain_id, block_number);

CREATE TABLE crosschain.fills (
  relay_hash bytea PRIMARY KEY,
  destination_chain_id bigint NOT NULL,
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  relayer bytea NOT NULL,
  repayment_chain_id bigint NOT NULL,
  fill_type smallint NOT NULL,
  updated_recipient bytea NOT NULL,
  updated_output_amount numeric(78) NOT NULL,
  -- True when the fill transaction emitted MulticallHandler's CallsFailed.
  calls_failed boolean NOT NULL,
  gas_fee numeric(78),
  tx_hash bytea NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_timestamp bigint NOT NULL
);
CREATE INDEX fills_block_idx ON crosschain.fills (destination_chain_id, block_number);

CREATE TABLE crosschain.slow_fill_requests (
  relay_hash bytea PRIMARY KEY,
  destination_chain_id bigint NOT NULL,
  tx_hash bytea NOT NULL,
  block_number bigint NOT NULL
);
CREATE INDEX slow_fill_requests_block_idx ON crosschain.slow_fill_requests (destination_chain_id, block_number);

CREATE TABLE crosschain.speedups (
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  depositor bytea NOT NULL,
  updated_output_amount numeric(78) NOT NULL,
  updated_recipient bytea NOT NULL,
  updated_message bytea NOT NULL,
  tx_hash bytea NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  PRIMARY KEY (origin_chain_id, tx_hash, log_index)
);

-- Settlement events (RelayedRootBundle, ExecutedRelayerRefundRoot, TokensBridged, ...), kept for the
-- refunds issue; stored decoded as JSON.
CREATE TABLE crosschain.settlement_events (
  chain_id bigint NOT NULL,
  event_name text NOT NULL,
  args jsonb NOT NULL,
  tx_hash bytea NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  PRIMARY KEY (chain_id, tx_hash, log_index)
);
CREATE INDEX settlement_events_block_idx ON crosschain.settlement_events (chain_id, block_number);

-- The relayer's durable intents: one row per deposit it decided to fill, written before it sends.
CREATE TABLE crosschain.relayer_fills (
  relay_hash bytea PRIMARY KEY,
  destination_chain_id bigint NOT NULL,
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  state text NOT NULL CHECK (state IN ('sending', 'sent', 'confirmed', 'failed', 'skipped')),
  nonce bigint,
  tx_hash bytea,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX relayer_fills_state_idx ON crosschain.relayer_fills (state, destination_chain_id);
