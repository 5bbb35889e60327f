-- Trading: orders and their executions, positions and cash, account activities, the durable trade-update
-- events the stream sends, equity snapshots for portfolio history, account configurations and watchlists.
-- Quantities are numeric(30, 9) (1e-9 of a share or coin, the exchange's unit); prices and amounts keep
-- nine decimals too, so a fractional fill's value is exact (the API prints them without trailing zeros).

-- Margin accounts borrow: cash may go below zero when the multiplier is above 1 (buying power is checked
-- at placement, see domain/buyingPower.ts). Account configurations live on the account row, which every
-- placement locks and reads anyway.
ALTER TABLE brokerage.accounts
  DROP CONSTRAINT IF EXISTS accounts_cash_check,
  ALTER COLUMN cash TYPE numeric(28, 9),
  -- Equity at the end of the previous session (last_equity), recorded by the snapshot job.
  ADD COLUMN last_equity numeric(28, 9),
  ADD COLUMN dtbp_check text NOT NULL DEFAULT 'entry' CHECK (dtbp_check IN ('both', 'entry', 'exit')),
  ADD COLUMN trade_confirm_email text NOT NULL DEFAULT 'all' CHECK (trade_confirm_email IN ('all', 'none')),
  ADD COLUMN suspend_trade boolean NOT NULL DEFAULT false,
  ADD COLUMN no_shorting boolean NOT NULL DEFAULT false,
  ADD COLUMN fractional_trading boolean NOT NULL DEFAULT true,
  ADD COLUMN max_margin_multiplier text NOT NULL DEFAULT '4' CHECK (max_margin_multiplier IN ('1', '2', '4')),
  ADD COLUMN pdt_check text NOT NULL DEFAULT 'entry' CHECK (pdt_check IN ('both', 'entry', 'exit'));

-- Every order, open or done. A replacement is a new row (`replaces`); legs of bracket/oco/oto orders point
-- to their parent. `status` is the anchor's order status.
CREATE TABLE brokerage.orders (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  client_order_id text NOT NULL,
  symbol text NOT NULL,
  asset_id uuid NOT NULL,
  asset_class text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  type text NOT NULL CHECK (type IN ('market', 'limit', 'stop', 'stop_limit', 'trailing_stop')),
  time_in_force text NOT NULL CHECK (time_in_force IN ('day', 'gtc', 'opg', 'cls', 'ioc', 'fok')),
  order_class text NOT NULL DEFAULT 'simple' CHECK (order_class IN ('simple', 'bracket', 'oco', 'oto')),
  -- Exactly one of qty and notional (notional: market day orders, executed for that many dollars).
  qty numeric(30, 9) CHECK (qty > 0),
  notional numeric(28, 9) CHECK (notional > 0),
  filled_qty numeric(30, 9) NOT NULL DEFAULT 0,
  -- Sum of price × qty of the fills, so filled_avg_price = filled_value / filled_qty exactly.
  filled_value numeric(40, 18) NOT NULL DEFAULT 0,
  limit_price numeric(24, 9),
  stop_price numeric(24, 9),
  trail_price numeric(24, 9),
  trail_percent numeric(12, 6),
  -- Trailing stops: the high (sell) or low (buy) water mark the stop follows.
  hwm numeric(24, 9),
  extended_hours boolean NOT NULL DEFAULT false,
  -- Sell to close a long, buy to cover a short (false), or an order that opens or adds to a short (true).
  opens_short boolean NOT NULL DEFAULT false,
  -- Buying power held per unit still to execute (buys and short sales; 0 for closing sales).
  hold_price numeric(24, 9) NOT NULL DEFAULT 0,
  status text NOT NULL,
  parent_id uuid REFERENCES brokerage.orders (id),
  replaces uuid REFERENCES brokerage.orders (id),
  replaced_by uuid REFERENCES brokerage.orders (id),
  -- Arrival rank in its symbol's book (live orders resting there), from the book's event sequence.
  book_priority bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  submitted_at timestamptz NOT NULL,
  filled_at timestamptz,
  expired_at timestamptz,
  canceled_at timestamptz,
  failed_at timestamptz,
  replaced_at timestamptz,
  cancel_requested_at timestamptz,
  expires_at timestamptz,
  CHECK ((qty IS NULL) <> (notional IS NULL))
);
CREATE UNIQUE INDEX orders_client_order_id_key ON brokerage.orders (account_id, client_order_id);
CREATE INDEX orders_account_created_idx ON brokerage.orders (account_id, created_at DESC, id);
CREATE INDEX orders_open_idx ON brokerage.orders (account_id, symbol)
  WHERE status IN ('accepted', 'pending_new', 'new', 'partially_filled', 'held', 'pending_cancel', 'pending_replace', 'accepted_for_bidding');
CREATE INDEX orders_parent_idx ON brokerage.orders (parent_id) WHERE parent_id IS NOT NULL;

-- What the exchange writer still has to do, in order; a command is marked done in the transaction that
-- applies its effects, so a killed writer redoes exactly the commands whose effects were not committed.
CREATE TABLE brokerage.order_commands (
  seq bigserial PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES brokerage.orders (id) ON DELETE CASCADE,
  command text NOT NULL CHECK (command IN ('submit', 'cancel', 'replace')),
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX order_commands_pending_idx ON brokerage.order_commands (seq) WHERE done_at IS NULL;

-- Open positions (a closed position's row is deleted). qty is signed: negative for a short.
CREATE TABLE brokerage.positions (
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  symbol text NOT NULL,
  asset_id uuid NOT NULL,
  asset_class text NOT NULL,
  exchange text NOT NULL,
  qty numeric(30, 9) NOT NULL CHECK (qty <> 0),
  avg_entry_price numeric(24, 9) NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, symbol)
);

-- Account activities: FILL (one per execution) and non-trade ones (cash deposits at opening, ...).
-- The id sorts by time ("<yyyymmddHHMMSSmmm>::<uuid>", as at the anchor), which pages use as their token.
CREATE TABLE brokerage.activities (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  activity_type text NOT NULL,
  transaction_time timestamptz NOT NULL,
  -- FILL
  order_id uuid REFERENCES brokerage.orders (id) ON DELETE CASCADE,
  execution_id text,
  symbol text,
  side text,
  type text,
  qty numeric(30, 9),
  price numeric(24, 9),
  cum_qty numeric(30, 9),
  leaves_qty numeric(30, 9),
  order_status text,
  -- Non-trade
  net_amount numeric(28, 9),
  per_share_amount numeric(24, 9),
  description text
);
CREATE INDEX activities_account_idx ON brokerage.activities (account_id, id);
CREATE UNIQUE INDEX activities_execution_key ON brokerage.activities (account_id, execution_id) WHERE execution_id IS NOT NULL;

-- The trade-update events of every account, in the order they happened (the stream's source). `order`
-- is the order object as it was at the event.
CREATE TABLE brokerage.trade_events (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  event text NOT NULL,
  at timestamptz NOT NULL,
  order_id uuid NOT NULL,
  "order" jsonb NOT NULL,
  execution_id text,
  price numeric(24, 9),
  qty numeric(30, 9),
  position_qty numeric(30, 9)
);
CREATE INDEX trade_events_account_idx ON brokerage.trade_events (account_id, id);

-- The state of each live book that its open orders alone do not give: its event sequence and last trade.
CREATE TABLE brokerage.exchange_books (
  symbol text PRIMARY KEY,
  sequence bigint NOT NULL,
  last_trade_price numeric(24, 9)
);

-- One exchange writer per deployment (the lease holder runs the books and the paper simulation).
CREATE TABLE brokerage.exchange_leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Equity of each account over time (portfolio history), recorded by the snapshot job.
CREATE TABLE brokerage.equity_snapshots (
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  equity numeric(28, 9) NOT NULL,
  cash numeric(28, 9) NOT NULL,
  PRIMARY KEY (account_id, at)
);

CREATE TABLE brokerage.watchlists (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES brokerage.accounts (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX watchlists_name_key ON brokerage.watchlists (account_id, name);

CREATE TABLE brokerage.watchlist_assets (
  watchlist_id uuid NOT NULL REFERENCES brokerage.watchlists (id) ON DELETE CASCADE,
  position integer NOT NULL,
  symbol text NOT NULL,
  PRIMARY KEY (watchlist_id, symbol)
);
