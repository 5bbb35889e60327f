-- Counterfactual deposit addresses issued by GET /swap/counterfactual, and what the watcher did with the funds
-- that reached them. An address is CREATE2 over its merkle root, so the root, the route parameters and the
-- withdraw parameters are all the watcher needs to deposit from it or refund it.
CREATE TABLE crosschain.deposit_addresses (
  origin_chain_id bigint NOT NULL,
  address bytea NOT NULL,
  root bytea NOT NULL,
  -- The input token as the beacon resolves it (the ERC-20, or the native sentinel).
  input_token bytea NOT NULL,
  input_symbol text NOT NULL,
  input_decimals int NOT NULL,
  route_params bytea NOT NULL,
  withdraw_params bytea NOT NULL,
  destination_chain_id bigint NOT NULL,
  output_token bytea NOT NULL,
  refund_address bytea NOT NULL,
  max_fee_bps int NOT NULL,
  stable_exchange_rate numeric NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (origin_chain_id, address)
);

-- One row per execution (a deposit or a refund) of an address, written with its signed transaction before the
-- transaction is broadcast: after a crash the same transaction is sent again (same hash), never a second one.
CREATE TABLE crosschain.deposit_address_executions (
  origin_chain_id bigint NOT NULL,
  address bytea NOT NULL,
  seq int NOT NULL,
  kind text NOT NULL CHECK (kind IN ('deposit', 'refund')),
  amount numeric NOT NULL,
  raw_tx bytea NOT NULL,
  tx_hash bytea NOT NULL,
  state text NOT NULL CHECK (state IN ('sent', 'confirmed', 'failed')),
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (origin_chain_id, address, seq),
  FOREIGN KEY (origin_chain_id, address) REFERENCES crosschain.deposit_addresses (origin_chain_id, address)
);
CREATE INDEX deposit_address_executions_open ON crosschain.deposit_address_executions (origin_chain_id)
  WHERE state = 'sent';
