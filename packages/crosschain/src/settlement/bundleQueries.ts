/**
 * The SQL of the bundle loader (bundleData.ts): one statement per item kind, each reading the LEDGER
 * (`bundle_items`) rather than only this bundle's block ranges. An event is a candidate as long as it is at
 * or below its chain's end block and not yet booked, so a pre-fill (indexed before its deposit) waits for
 * the bundle that contains its deposit, and nothing is lost to a range that was already passed.
 *
 * Every statement takes `$1` chain ids, `$2` end blocks, `$3` end block timestamps (parallel arrays, the
 * bundle's ranges), looked up per row with array_position: joined as a relation instead, the planner
 * misjudged the ranges' selectivity and chose nested loops (3× slower at 100k rows).
 *
 * Each row comes back as ONE text column `x`, its fields separated by spaces (hex without 0x; numbers as
 * decimal; `-` for a missing LP fee): PGlite spends most of a large read building one JS value per field,
 * so five columns read 3× slower than their concatenation (100k deposits: ~1.8 s against ~0.6 s).
 */

/** Rows of every statement here. */
export interface TextRow {
  x: string;
}

const endOf = (chain: string) => `($2::bigint[])[array_position($1::bigint[], ${chain})]`;
const endTimeOf = (chain: string) => `($3::bigint[])[array_position($1::bigint[], ${chain})]`;

const notBooked = (kind: string, alias: string) =>
  `NOT EXISTS (SELECT 1 FROM crosschain.bundle_items b WHERE b.kind = '${kind}' AND b.relay_hash = ${alias}.relay_hash)`;

const hex = (column: string) => `encode(${column}, 'hex')`;
/** An address in the low 20 bytes of a bytes32 column (input and output tokens are EVM addresses). */
const address = (column: string) => `encode(substring(${column} FROM 13), 'hex')`;
const fields = (...columns: string[]) => `${columns.join(" || ' ' || ")} AS x`;

/** A fill of the deposit at or below the destination's end block. */
const filledByEnd = (alias: string) =>
  `EXISTS (SELECT 1 FROM crosschain.fills f2 WHERE f2.relay_hash = ${alias}.relay_hash
    AND f2.block_number <= ${endOf(`${alias}.destination_chain_id`)})`;

/** Fields every row starts with: relay hash, origin chain, deposit id, input token address, input amount. */
const ITEM_FIELDS = [
  hex("d.relay_hash"),
  "d.origin_chain_id",
  "d.deposit_id",
  address("d.input_token"),
  "d.input_amount",
];
const depositAtOrigin = `d.block_number <= ${endOf("d.origin_chain_id")}`;

/** Fields: the item fields. */
export const DEPOSITS_SQL = `SELECT ${fields(...ITEM_FIELDS)}
FROM crosschain.deposits d
WHERE ${depositAtOrigin} AND ${notBooked("deposit", "d")}`;

/**
 * Fields: the item fields, repayment chain id, relayer (bytes32), stored LP fee pct or `-`. Payees are
 * checked to be EVM addresses in JS, not in SQL: the planner guesses 0.5 % for such a filter and then joins
 * 90k fills by nested loops.
 */
export const FILL_REFUNDS_SQL = `SELECT ${fields(...ITEM_FIELDS, "f.repayment_chain_id", hex("f.relayer"), "coalesce(lf.lp_fee_pct::text, '-')")}
FROM crosschain.fills f
JOIN crosschain.deposits d ON d.relay_hash = f.relay_hash
LEFT JOIN crosschain.deposit_lp_fees lf ON lf.relay_hash = f.relay_hash
WHERE f.fill_type <> 2 AND f.block_number <= ${endOf("f.destination_chain_id")} AND ${depositAtOrigin}
  AND ${notBooked("fillRefund", "f")}`;

/**
 * Fields: the item fields, depositor (bytes32). Expired is `fill_deadline < end timestamp` (strict), as the
 * SDK's `_depositIsExpired` and domain/depositStatus.ts: a fill is still valid at the deadline itself.
 */
export const EXPIRED_SQL = `SELECT ${fields(...ITEM_FIELDS, hex("d.depositor"))}
FROM crosschain.deposits d
WHERE d.fill_deadline < ${endTimeOf("d.destination_chain_id")} AND ${depositAtOrigin}
  AND NOT ${filledByEnd("d")} AND ${notBooked("expiredRefund", "d")}`;

/**
 * Fields: the item fields, destination chain, then the relay data as bytes32 hex (depositor, recipient,
 * exclusive relayer, input token, output token), output amount, fill deadline, exclusivity deadline, the
 * message hex (empty for `0x`, so the row then ends in a space), and last the stored LP fee pct or `-`.
 * V5-tagged messages (SpokePool `_isV5Message`: first word = keccak256("AcrossV5MessagePrefix.V1"), `$4`)
 * cannot be slow-filled (`nonV5Fill`), nor can zero-value deposits.
 */
export const SLOW_FILLS_SQL = `SELECT ${fields(
  ...ITEM_FIELDS,
  "d.destination_chain_id",
  hex("d.depositor"),
  hex("d.recipient"),
  hex("d.exclusive_relayer"),
  hex("d.input_token"),
  hex("d.output_token"),
  "d.output_amount",
  "d.fill_deadline",
  "d.exclusivity_deadline",
  "coalesce(lf.lp_fee_pct::text, '-')",
  hex("d.message"),
)}
FROM crosschain.slow_fill_requests s
JOIN crosschain.deposits d ON d.relay_hash = s.relay_hash
LEFT JOIN crosschain.deposit_lp_fees lf ON lf.relay_hash = s.relay_hash
WHERE s.block_number <= ${endOf("s.destination_chain_id")} AND ${depositAtOrigin}
  AND d.fill_deadline >= ${endTimeOf("d.destination_chain_id")} AND d.input_amount > 0
  AND substring(d.message FOR 32) <> decode($4, 'hex')
  AND NOT ${filledByEnd("d")} AND ${notBooked("slowFill", "s")}`;

/**
 * Fields: the item fields with the leaf's amount in place of the input amount, the leaf's chain, the output
 * token address. Not bound to the ranges: the executor marks a leaf superseded or expired, and it is taken
 * back once. Takes no parameters.
 */
export const EXCESS_SLOW_FILLS_SQL = `SELECT ${fields(
  hex("l.relay_hash"),
  "d.origin_chain_id",
  "d.deposit_id",
  address("d.input_token"),
  "l.updated_output_amount",
  "l.chain_id",
  address("d.output_token"),
)}
FROM crosschain.bundle_slow_leaves l
JOIN crosschain.deposits d ON d.relay_hash = l.relay_hash
WHERE l.exec_state IN ('superseded', 'expired') AND ${notBooked("excessSlowFill", "l")}`;

/**
 * Deposits that a fill refund or a slow fill of these ranges may need an LP fee for and that have none
 * stored (the input of `ensureDepositLpFees`). A superset of what the loader prices is harmless: a fee is
 * stored once either way. Fields: relay hash, origin, destination, input token address, input amount,
 * quote timestamp.
 */
export const UNPRICED_DEPOSITS_SQL = `SELECT ${fields(
  hex("d.relay_hash"),
  "d.origin_chain_id",
  "d.destination_chain_id",
  address("d.input_token"),
  "d.input_amount",
  "d.quote_timestamp",
)}
FROM (
  SELECT f.relay_hash FROM crosschain.fills f
  WHERE f.fill_type <> 2 AND f.block_number <= ${endOf("f.destination_chain_id")} AND ${notBooked("fillRefund", "f")}
  UNION
  SELECT s.relay_hash FROM crosschain.slow_fill_requests s
  WHERE s.block_number <= ${endOf("s.destination_chain_id")} AND ${notBooked("slowFill", "s")}
) c
JOIN crosschain.deposits d ON d.relay_hash = c.relay_hash
WHERE ${depositAtOrigin}
  AND NOT EXISTS (SELECT 1 FROM crosschain.deposit_lp_fees lf WHERE lf.relay_hash = d.relay_hash)`;
