/**
 * The deposit status rule in SQL, shared by the reads (`depositsRepository.ts`) and the status outbox
 * (`depositStatusEvents.ts`) so both always agree with `domain/depositStatus.ts`. The fragments expect the
 * aliases `d` (crosschain.deposits), `f` (its fill), `s` (its slow-fill request) and `r` (its refund, from
 * {@link REFUND_JOIN}).
 */

/**
 * The refund of an expired deposit: its `expiredRefund` ledger item on the origin chain, paid by a relayer
 * refund leaf of the same bundle, chain and token that lists the item's payee, whose execution
 * (`ExecutedRelayerRefundRoot` with that leaf's spoke root bundle id AND leaf id) the indexer stored. Matching
 * the leaf id is stricter than the anchor (which takes any execution of the bundle on the chain): a bundle
 * with several refund leaves on one chain refunds each deposit with its own leaf's transaction. The event comes
 * from the indexed chain, so a reorg that removes it makes the deposit expired again.
 */
export const REFUND_JOIN = `LEFT JOIN LATERAL (
    SELECT e.tx_hash FROM crosschain.bundle_items bi
    JOIN crosschain.bundle_refund_leaves l ON l.bundle_id = bi.bundle_id AND l.chain_id = bi.chain_id
      AND l.l2_token = bi.l2_token AND bi.payee = ANY (l.refund_addresses)
    JOIN crosschain.settlement_events e ON e.chain_id = l.chain_id AND e.event_name = 'ExecutedRelayerRefundRoot'
      AND (e.args->>'rootBundleId')::bigint = l.spoke_root_bundle_id AND (e.args->>'leafId')::bigint = l.leaf_id
    WHERE bi.relay_hash = d.relay_hash AND bi.kind = 'expiredRefund' AND bi.chain_id = d.origin_chain_id
    ORDER BY e.block_number, e.log_index LIMIT 1) r ON true`;

/** The fill, slow-fill request and refund of each deposit `d`. */
export const STATUS_JOINS = `LEFT JOIN crosschain.fills f ON f.relay_hash = d.relay_hash
  LEFT JOIN crosschain.slow_fill_requests s ON s.relay_hash = d.relay_hash
  ${REFUND_JOIN}`;

/**
 * The raw status (`unfilled`, not `pending`, unless `pending` names it otherwise); `now` = unix seconds (an
 * SQL expression). A fill is final (a slow fill too), then a refund, then a passed deadline, then a slow-fill
 * request.
 */
export const STATUS_SQL = (now: string, pending = "unfilled") => `CASE
  WHEN f.relay_hash IS NOT NULL THEN 'filled'
  WHEN r.tx_hash IS NOT NULL THEN 'refunded'
  WHEN d.fill_deadline < ${now} THEN 'expired'
  WHEN s.relay_hash IS NOT NULL THEN 'slowFillRequested'
  ELSE '${pending}' END`;

/**
 * Relay hashes of the deposits whose refund is executed by an `ExecutedRelayerRefundRoot` of chain `$chain`
 * at block `$from` or above (parameters named by the caller).
 */
export const REFUNDED_BY_CHAIN_SQL = (chain: string, from: string) => `
  SELECT bi.relay_hash FROM crosschain.settlement_events e
  JOIN crosschain.bundle_refund_leaves l ON l.chain_id = e.chain_id
    AND l.spoke_root_bundle_id = (e.args->>'rootBundleId')::bigint AND l.leaf_id = (e.args->>'leafId')::bigint
  JOIN crosschain.bundle_items bi ON bi.bundle_id = l.bundle_id AND bi.kind = 'expiredRefund'
    AND bi.chain_id = l.chain_id AND bi.l2_token = l.l2_token AND bi.payee = ANY (l.refund_addresses)
  WHERE e.chain_id = ${chain} AND e.block_number >= ${from} AND e.event_name = 'ExecutedRelayerRefundRoot'`;
