-- Block headers of every indexed chain, their daily rollups, and each chain's checkpoint.
-- The rollups are kept in the same transaction as the blocks, so a statistics query reads at most
-- one row per day, and a reorg subtracts exactly what it removes.
CREATE SCHEMA IF NOT EXISTS chainstats;

CREATE TABLE chainstats.chains (
  chain_id bigint PRIMARY KEY,
  genesis_hash bytea NOT NULL,
  -- The next block to index; every block below it (down to start_block) is stored.
  next_block bigint NOT NULL,
  start_block bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE chainstats.blocks (
  chain_id bigint NOT NULL,
  number bigint NOT NULL,
  hash bytea NOT NULL,
  parent_hash bytea NOT NULL,
  timestamp bigint NOT NULL,
  gas_limit numeric(78) NOT NULL,
  gas_used numeric(78) NOT NULL,
  base_fee_per_gas numeric(78),
  size bigint NOT NULL,
  tx_count integer NOT NULL,
  miner bytea NOT NULL,
  -- Seconds since the parent block; NULL for the first block indexed (its parent is not stored).
  block_time bigint,
  PRIMARY KEY (chain_id, number)
);

CREATE TABLE chainstats.daily (
  chain_id bigint NOT NULL,
  day date NOT NULL,
  block_count bigint NOT NULL,
  gas_limit_sum numeric NOT NULL,
  gas_used_sum numeric NOT NULL,
  size_sum numeric NOT NULL,
  tx_count bigint NOT NULL,
  block_time_sum numeric NOT NULL,
  block_time_count bigint NOT NULL,
  PRIMARY KEY (chain_id, day)
);
