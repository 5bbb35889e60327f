-- Lookups of the deposit status rule (src/store/depositStatusSql.ts) and of its outbox:
-- the execution of a relayer refund leaf by (chain, spoke root bundle id, leaf id), the leaf by the id the
-- spoke gave its bundle, deposits by fill deadline (the expiry sweep reads a window of deadlines), and the
-- status events of one deposit transaction (the push stream's depositTxnRef filter).
CREATE INDEX settlement_events_refund_leaf_idx ON crosschain.settlement_events
  (chain_id, ((args->>'rootBundleId')::bigint), ((args->>'leafId')::bigint))
  WHERE event_name = 'ExecutedRelayerRefundRoot';
CREATE INDEX bundle_refund_leaves_spoke_idx ON crosschain.bundle_refund_leaves (chain_id, spoke_root_bundle_id, leaf_id);
CREATE INDEX deposits_fill_deadline_idx ON crosschain.deposits (fill_deadline);
CREATE INDEX deposit_status_events_tx_idx ON crosschain.deposit_status_events USING hash (deposit_tx);
