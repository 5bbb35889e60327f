-- Settlement (src/settlement/): root bundles the dataworker builds from the indexed events, proposes on the
-- HubPool and executes, with everything it needs to resume after a kill at any instant.

-- One root bundle. `status` is the dataworker's step (src/settlement/steps.ts):
-- built → proposed → executed, or abandoned (a reorg removed what it was built from before it was proposed).
CREATE TABLE crosschain.bundles (
  id bigserial PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('built', 'proposed', 'executed', 'abandoned')),
  -- Parallel arrays in CHAIN_ID_INDICES order: the block range of every chain, and each end block's hash and time.
  chain_ids bigint[] NOT NULL,
  start_blocks bigint[] NOT NULL,
  end_blocks bigint[] NOT NULL,
  end_hashes bytea[] NOT NULL,
  end_timestamps bigint[] NOT NULL,
  pool_rebalance_root bytea NOT NULL,
  relayer_refund_root bytea NOT NULL,
  slow_relay_root bytea NOT NULL,
  pool_leaf_count integer NOT NULL,
  -- Set once the proposal is on the hub chain.
  propose_tx bytea,
  propose_block bigint,
  challenge_end bigint,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one bundle in flight.
CREATE UNIQUE INDEX bundles_one_open_idx ON crosschain.bundles ((true)) WHERE status IN ('built', 'proposed');

-- The settlement ledger: every deposit, fill, refund and slow fill is booked in exactly one bundle.
-- (No foreign key on bundle_id: it is checked per row and doubles the time of booking a large bundle; items
-- are written and deleted with their bundle in one transaction.)
CREATE TABLE crosschain.bundle_items (
  bundle_id bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('deposit', 'fillRefund', 'expiredRefund', 'slowFill', 'excessSlowFill')),
  relay_hash bytea NOT NULL,
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  chain_id bigint NOT NULL,
  l1_token bytea NOT NULL,
  l2_token bytea NOT NULL,
  payee bytea NOT NULL,
  amount numeric(78) NOT NULL,
  lp_fee numeric(78) NOT NULL,
  PRIMARY KEY (kind, relay_hash)
);
CREATE INDEX bundle_items_bundle_idx ON crosschain.bundle_items (bundle_id);
CREATE INDEX bundle_items_relay_hash_idx ON crosschain.bundle_items (relay_hash);

-- Pool rebalance leaves (HubPoolInterface.PoolRebalanceLeaf) with their proofs and execution.
CREATE TABLE crosschain.bundle_pool_leaves (
  bundle_id bigint NOT NULL REFERENCES crosschain.bundles (id) ON DELETE CASCADE,
  leaf_id integer NOT NULL,
  chain_id bigint NOT NULL,
  group_index integer NOT NULL,
  l1_tokens bytea[] NOT NULL,
  bundle_lp_fees numeric(78)[] NOT NULL,
  net_send_amounts numeric(78)[] NOT NULL,
  running_balances numeric(78)[] NOT NULL,
  proof bytea[] NOT NULL,
  exec_tx bytea,
  PRIMARY KEY (bundle_id, leaf_id)
);

-- Relayer refund leaves (SpokePoolInterface.RelayerRefundLeaf). `spoke_root_bundle_id` is the id the spoke
-- gave the relayed roots (RelayedRootBundle), known once the roots reached the spoke.
CREATE TABLE crosschain.bundle_refund_leaves (
  bundle_id bigint NOT NULL REFERENCES crosschain.bundles (id) ON DELETE CASCADE,
  leaf_id integer NOT NULL,
  chain_id bigint NOT NULL,
  l2_token bytea NOT NULL,
  amount_to_return numeric(78) NOT NULL,
  refund_addresses bytea[] NOT NULL,
  refund_amounts numeric(78)[] NOT NULL,
  proof bytea[] NOT NULL,
  spoke_root_bundle_id bigint,
  exec_tx bytea,
  PRIMARY KEY (bundle_id, leaf_id)
);

-- Slow relay leaves (V3SlowFill). exec_state: pending, executed, or superseded (filled fast meanwhile) /
-- expired (past its deadline unexecuted), which a later bundle books as an excess slow fill.
CREATE TABLE crosschain.bundle_slow_leaves (
  bundle_id bigint NOT NULL REFERENCES crosschain.bundles (id) ON DELETE CASCADE,
  relay_hash bytea NOT NULL,
  chain_id bigint NOT NULL,
  leaf_index integer NOT NULL,
  relay_data jsonb NOT NULL,
  updated_output_amount numeric(78) NOT NULL,
  proof bytea[] NOT NULL,
  exec_state text NOT NULL DEFAULT 'pending' CHECK (exec_state IN ('pending', 'executed', 'superseded', 'expired')),
  exec_tx bytea,
  PRIMARY KEY (bundle_id, relay_hash)
);

-- HubPool reserves (`pooledTokens`) as the dataworker saw them, for the LP fee of a deposit at its quote
-- time: the devnet keeps no historical state to call the HubPool at an old block.
CREATE TABLE crosschain.hub_pool_snapshots (
  l1_token bytea NOT NULL,
  block_number bigint NOT NULL,
  block_timestamp bigint NOT NULL,
  liquid_reserves numeric(78) NOT NULL,
  utilized_reserves numeric(78) NOT NULL,
  undistributed_lp_fees numeric(78) NOT NULL,
  PRIMARY KEY (l1_token, block_number)
);
CREATE INDEX hub_pool_snapshots_time_idx ON crosschain.hub_pool_snapshots (l1_token, block_timestamp);

-- The realized LP fee of each deposit, computed once, so a restart never prices it differently.
CREATE TABLE crosschain.deposit_lp_fees (
  relay_hash bytea PRIMARY KEY,
  lp_fee_pct numeric(78) NOT NULL,
  hub_block bigint NOT NULL
);

-- The dataworker's transactions: an intent is written (with its nonce) before it is sent, so a restart finds
-- what it may have sent and reconciles it by receipt or by the account's nonce instead of sending twice.
CREATE TABLE crosschain.settlement_txs (
  id bigserial PRIMARY KEY,
  bundle_id bigint NOT NULL REFERENCES crosschain.bundles (id) ON DELETE CASCADE,
  step text NOT NULL,
  chain_id bigint NOT NULL,
  sender bytea NOT NULL,
  nonce bigint NOT NULL,
  -- The signed transaction, written before it is broadcast: a restart re-broadcasts exactly it.
  raw_tx bytea NOT NULL,
  tx_hash bytea NOT NULL,
  state text NOT NULL CHECK (state IN ('sent', 'confirmed', 'reverted', 'dropped')),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  block_number bigint
);
-- One live transaction per step; a dropped one (its nonce went to another transaction) may be replaced.
CREATE UNIQUE INDEX settlement_txs_step_idx ON crosschain.settlement_txs (bundle_id, step) WHERE state <> 'dropped';

-- Deposit status changes, an outbox the push stream reads (id = the SSE event id). The writers insert in
-- the same transaction as the change and NOTIFY crosschain_deposit_status.
CREATE TABLE crosschain.deposit_status_events (
  id bigserial PRIMARY KEY,
  origin_chain_id bigint NOT NULL,
  deposit_id numeric(78) NOT NULL,
  depositor bytea NOT NULL,
  recipient bytea NOT NULL,
  deposit_tx bytea NOT NULL,
  status text NOT NULL,
  fill_tx bytea,
  refund_tx bytea,
  cause text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deposit_status_events_deposit_idx ON crosschain.deposit_status_events (origin_chain_id, deposit_id, id);
CREATE INDEX deposit_status_events_depositor_idx ON crosschain.deposit_status_events (depositor, id);
