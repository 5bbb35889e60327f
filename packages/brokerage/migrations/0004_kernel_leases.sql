-- The exchange writer runs under the kernel's lease `brokerage.exchange-writer` (platform.leases, with a
-- fencing token asserted in every writer commit): its own lease table is gone. The market recorder's
-- checkpoints (brokerage.market_recorder) stay: they are the position it reached, not coordination.
DROP TABLE brokerage.exchange_leases;
