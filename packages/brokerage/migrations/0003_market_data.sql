-- Market data (the data host): every trade and quote of the market, bars rolled up from the trades as they are
-- recorded, the outbox the data streams read, the recorder's checkpoint, and the streams' connection slots.
-- Prices and sizes are exact (numeric), as in the trading tables.

-- Every trade print: the price process's tape (id = its step, one print a second at most) and the executions of
-- our live exchange (id = 2^40 + n). Timestamps have millisecond precision.
CREATE TABLE brokerage.market_trades (
  symbol text NOT NULL,
  id bigint NOT NULL,
  at timestamptz NOT NULL,
  price numeric(24, 9) NOT NULL,
  size numeric(30, 9) NOT NULL,
  -- 'B' buyer-initiated, 'S' seller-initiated (the anchor's crypto `tks`).
  taker_side char(1) NOT NULL CHECK (taker_side IN ('B', 'S')),
  -- The anchor's exchange code (`x`): 'V' (IEX) for our exchange's equities, 'CBSE' for crypto.
  exchange text NOT NULL,
  -- The anchor's condition codes (`c`), e.g. {@} regular sale, {@,I} odd lot.
  conditions text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (symbol, id)
);
CREATE INDEX market_trades_time_idx ON brokerage.market_trades (symbol, at, id);

-- The best bid and offer, one row a second per symbol (the price process's step).
CREATE TABLE brokerage.market_quotes (
  symbol text NOT NULL,
  at timestamptz NOT NULL,
  bid_price numeric(24, 9) NOT NULL,
  bid_size numeric(30, 9) NOT NULL,
  ask_price numeric(24, 9) NOT NULL,
  ask_size numeric(30, 9) NOT NULL,
  exchange text NOT NULL,
  conditions text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (symbol, at)
);

-- Bars rolled up from market_trades in the transaction that records the trades (never recomputed per
-- request). 1Min and 1Hour buckets start on the UTC minute/hour; 1Day buckets at midnight New York time (the
-- anchor's daily bars). Longer timeframes are read by merging these. open/close are the first/last trade by
-- (at, id), kept with the bar so that merging trades in any order gives the same bar.
CREATE TABLE brokerage.market_bars (
  symbol text NOT NULL,
  timeframe text NOT NULL CHECK (timeframe IN ('1Min', '1Hour', '1Day')),
  t timestamptz NOT NULL,
  open numeric(24, 9) NOT NULL,
  high numeric(24, 9) NOT NULL,
  low numeric(24, 9) NOT NULL,
  close numeric(24, 9) NOT NULL,
  volume numeric(30, 9) NOT NULL,
  trade_count integer NOT NULL,
  -- Σ price × size, so vwap = notional / volume exactly.
  notional numeric(44, 18) NOT NULL,
  open_at timestamptz NOT NULL,
  open_id bigint NOT NULL,
  close_at timestamptz NOT NULL,
  close_id bigint NOT NULL,
  PRIMARY KEY (symbol, timeframe, t)
);

-- The data streams' outbox: each message as the stream sends it (JSON, `t` as an RFC 3339 string), in the
-- order written. Written with the rows above, NOTIFY'd on brokerage_market_feed, read after a cursor by every
-- API instance, and pruned after minutes (it is a transport, not history).
CREATE TABLE brokerage.market_feed (
  seq bigserial PRIMARY KEY,
  written_at timestamptz NOT NULL DEFAULT now(),
  symbol text NOT NULL,
  -- The stream channel: trades, quotes, bars, updatedBars, dailyBars, statuses.
  channel text NOT NULL,
  message json NOT NULL
);
CREATE INDEX market_feed_written_idx ON brokerage.market_feed (written_at);

-- The recorder's checkpoints. 'tape': the market from the first start on; everything before recorded_to is
-- recorded; bars of minutes before closed_to are final (sent on the `bars` channel; a later trade in them is
-- an `updatedBars` message). 'history': the bars of the days before the first start, from recorded_to up to
-- ends_at (the tape's first instant).
CREATE TABLE brokerage.market_recorder (
  name text PRIMARY KEY,
  recorded_to timestamptz NOT NULL,
  closed_to timestamptz NOT NULL,
  ends_at timestamptz
);

-- Data stream connection slots (PostgreSQL backend; Redis holds them when REDIS_URL is set). A slot is held
-- while its connection lives and is renewed while the client answers pings; an expired row is a free slot.
CREATE TABLE brokerage.data_stream_slots (
  connection_id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES brokerage.users (id) ON DELETE CASCADE,
  instance text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX data_stream_slots_user_idx ON brokerage.data_stream_slots (user_id, expires_at);

-- Per user: how many data stream connections they may hold at once (the anchor's 1 for most plans), and their
-- market data plan: 'basic' (IEX feed, 30 symbols of trades and quotes on a stream) or 'plus' (every feed,
-- no symbol limit), as Alpaca's Basic and Algo Trader Plus.
ALTER TABLE brokerage.users
  ADD COLUMN data_stream_connections integer NOT NULL DEFAULT 1 CHECK (data_stream_connections >= 0),
  ADD COLUMN data_plan text NOT NULL DEFAULT 'basic' CHECK (data_plan IN ('basic', 'plus'));
