/**
 * Test rows for the settlement loaders: deposits, fills, slow fill requests and bundles written straight
 * into the crosschain tables (the indexer's columns), with a token map where one token has the same
 * address on every chain, as on the devnet.
 */
import { hexToBytea, type Queryable } from "@platform/kernel";
import { type Address, type Hex, keccak256, pad, toHex } from "viem";
import type { TokenMap } from "./types.ts";

export const TOKEN: Address = "0x00000000000000000000000000000000000000aa";
export const OTHER_TOKEN: Address = "0x00000000000000000000000000000000000000bb";
export const RELAYER: Address = "0x00000000000000000000000000000000000000e1";
export const DEPOSITOR: Address = "0x00000000000000000000000000000000000000d1";
export const RECIPIENT: Address = "0x00000000000000000000000000000000000000c1";

/** `TOKEN` and `OTHER_TOKEN` routed on `chains` (each maps to itself); other tokens and chains are not. */
export function sameAddressTokenMap(chains: readonly number[]): TokenMap {
  const known = (chainId: number, token: Address) =>
    chains.includes(chainId) && [TOKEN, OTHER_TOKEN].includes(token.toLowerCase() as Address) ? token : undefined;
  return { l1TokenOf: known, l2TokenOf: known };
}

const b32 = (a: Address | Hex) => hexToBytea(pad(a, { size: 32 }));

/** A deposit row; unset fields take test defaults. */
export interface TestDeposit {
  origin: number;
  destination: number;
  depositId: bigint;
  block: bigint;
  fillDeadline: bigint;
  inputAmount?: bigint;
  inputToken?: Address;
  outputToken?: Address;
  quoteTimestamp?: bigint;
  message?: Hex;
  /** bytes32; defaults to `DEPOSITOR` left-padded. */
  depositor?: Hex;
}

/** The relay hash the test rows use for a deposit (any unique 32 bytes serve the loaders). */
export const testRelayHash = (origin: number, depositId: bigint): Hex => keccak256(toHex(`${origin}:${depositId}`));

export async function insertDeposit(db: Queryable, d: TestDeposit): Promise<Hex> {
  const relayHash = testRelayHash(d.origin, d.depositId);
  const amount = d.inputAmount ?? 1_000_000n;
  await db.query(
    `INSERT INTO crosschain.deposits (origin_chain_id, deposit_id, destination_chain_id, relay_hash, depositor, recipient,
       exclusive_relayer, input_token, output_token, input_amount, output_amount, quote_timestamp, fill_deadline,
       exclusivity_deadline, message, message_hash, tx_hash, tx_index, log_index, block_number, block_timestamp)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, $14, $15, $4, 0, 0, $16, $12)`,
    [
      d.origin,
      d.depositId.toString(),
      d.destination,
      hexToBytea(relayHash),
      hexToBytea(d.depositor ?? pad(DEPOSITOR, { size: 32 })),
      b32(RECIPIENT),
      b32("0x00"),
      b32(d.inputToken ?? TOKEN),
      b32(d.outputToken ?? TOKEN),
      amount.toString(),
      ((amount * 99n) / 100n).toString(),
      (d.quoteTimestamp ?? 1_000n).toString(),
      d.fillDeadline.toString(),
      hexToBytea(d.message ?? "0x"),
      b32("0x00"),
      d.block.toString(),
    ],
  );
  return relayHash;
}

/** A FilledRelay row of `relayHash` (fill type 0 = FastFill unless given). */
export async function insertFill(
  db: Queryable,
  f: {
    relayHash: Hex;
    origin: number;
    destination: number;
    block: bigint;
    repaymentChainId: number;
    fillType?: number;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO crosschain.fills (relay_hash, destination_chain_id, origin_chain_id, deposit_id, relayer,
       repayment_chain_id, fill_type, updated_recipient, updated_output_amount, calls_failed, tx_hash, log_index,
       block_number, block_timestamp)
     VALUES ($1, $2, $3, 0, $4, $5, $6, $7, 0, false, $1, 0, $8, 0)`,
    [
      hexToBytea(f.relayHash),
      f.destination,
      f.origin,
      b32(RELAYER),
      f.repaymentChainId,
      f.fillType ?? 0,
      b32(RECIPIENT),
      f.block.toString(),
    ],
  );
}

export async function insertSlowRequest(
  db: Queryable,
  s: { relayHash: Hex; destination: number; block: bigint },
): Promise<void> {
  await db.query(
    `INSERT INTO crosschain.slow_fill_requests (relay_hash, destination_chain_id, tx_hash, block_number)
     VALUES ($1, $2, $1, $3)`,
    [hexToBytea(s.relayHash), s.destination, s.block.toString()],
  );
}

/** An executed bundle row (what `bundle_items` and the leaves reference); returns its id. */
export async function insertBundle(db: Queryable): Promise<bigint> {
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO crosschain.bundles (status, chain_ids, start_blocks, end_blocks, end_hashes, end_timestamps,
       pool_rebalance_root, relayer_refund_root, slow_relay_root, pool_leaf_count)
     VALUES ('executed', '{}', '{}', '{}', '{}', '{}', '\\x00', '\\x00', '\\x00', 0) RETURNING id`,
  );
  return BigInt(row!.id);
}

/** A slow leaf of `bundleId` in `state` (its relay data is not read by the loaders). */
export async function insertSlowLeaf(
  db: Queryable,
  l: { bundleId: bigint; relayHash: Hex; chainId: number; amount: bigint; state: string },
): Promise<void> {
  await db.query(
    `INSERT INTO crosschain.bundle_slow_leaves (bundle_id, relay_hash, chain_id, leaf_index, relay_data,
       updated_output_amount, proof, exec_state)
     VALUES ($1, $2, $3, 0, '{}', $4, '{}', $5)`,
    [l.bundleId.toString(), hexToBytea(l.relayHash), l.chainId, l.amount.toString(), l.state],
  );
}

/** Empties every table the loaders read or write, between tests sharing one database. */
export async function clearLedger(db: Queryable): Promise<void> {
  await db.exec(
    `TRUNCATE crosschain.deposits, crosschain.fills, crosschain.slow_fill_requests, crosschain.bundles, crosschain.bundle_items CASCADE;
     TRUNCATE crosschain.deposit_lp_fees, crosschain.hub_pool_snapshots;`,
  );
}
