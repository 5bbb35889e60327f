/**
 * The realized LP fee of a deposit (docs/design/settlement.md §4.2): the quote path's formula
 * (`computeLpFee`, with the token's rate model) over the HubPool reserves at the last recorded hub block
 * whose timestamp is ≤ the deposit's `quoteTimestamp`. The devnet prunes history, so the reserves come
 * from `hub_pool_snapshots` the hub follower records, not from an `eth_call` at an old block; and each
 * deposit's fee is stored once in `deposit_lp_fees`, so a restart never prices it differently.
 */
import { byteaToHex, hexDigits, type Queryable } from "@platform/kernel";
import type { Address, Hex } from "viem";
import { computeLpFee, type HubPoolLiquidity, type L1TokenRateConfig, resolveRateModel } from "../domain/fees/lpFee.ts";
import type { TokenMap } from "./types.ts";

/** One token's `pooledTokens` reserves at a hub block. */
export interface HubReserves {
  l1Token: Address;
  liquidReserves: bigint;
  /** int256 on chain: may be negative. */
  utilizedReserves: bigint;
  undistributedLpFees: bigint;
}

/** The reserves of every pooled token at one hub block. */
export interface HubSnapshot {
  blockNumber: bigint;
  blockTimestamp: bigint;
  reserves: readonly HubReserves[];
}

/**
 * Records the reserves read at a hub block, for the tokens whose reserves differ from their latest snapshot
 * (the dataworker reads them every tick; an unchanged pool adds no row, and the lookup by quote time finds
 * the same values in the earlier one). Recording the same block again changes nothing.
 */
export async function recordHubSnapshot(db: Queryable, snapshot: HubSnapshot): Promise<void> {
  if (snapshot.reserves.length === 0) return;
  const r = snapshot.reserves;
  await db.query(
    `INSERT INTO crosschain.hub_pool_snapshots
       (l1_token, block_number, block_timestamp, liquid_reserves, utilized_reserves, undistributed_lp_fees)
     SELECT decode(t, 'hex'), $1, $2, l, u, f
     FROM unnest($3::text[], $4::numeric[], $5::numeric[], $6::numeric[]) AS s(t, l, u, f)
     WHERE NOT EXISTS (
       SELECT 1 FROM (
         SELECT liquid_reserves, utilized_reserves, undistributed_lp_fees FROM crosschain.hub_pool_snapshots p
         WHERE p.l1_token = decode(s.t, 'hex') ORDER BY p.block_timestamp DESC, p.block_number DESC LIMIT 1
       ) last
       WHERE last.liquid_reserves = s.l AND last.utilized_reserves = s.u AND last.undistributed_lp_fees = s.f)
     ON CONFLICT (l1_token, block_number) DO NOTHING`,
    [
      snapshot.blockNumber.toString(),
      snapshot.blockTimestamp.toString(),
      r.map((x) => hexDigits(x.l1Token).toLowerCase()),
      r.map((x) => x.liquidReserves.toString()),
      r.map((x) => x.utilizedReserves.toString()),
      r.map((x) => x.undistributedLpFees.toString()),
    ],
  );
}

/** A token's reserves at one hub block. */
export interface SnapshotPoint {
  blockNumber: bigint;
  blockTimestamp: bigint;
  reserves: HubPoolLiquidity;
}

/** Snapshots by lower-case L1 token, sorted by (timestamp, block). */
export type HubSnapshots = ReadonlyMap<string, readonly SnapshotPoint[]>;

/**
 * Every snapshot of `l1Tokens`, read once, so pricing many deposits is a binary search each rather than a
 * query each. The table holds one row per token per HubPool event block: small next to the deposits.
 */
export async function loadHubSnapshots(db: Queryable, l1Tokens: readonly Address[]): Promise<HubSnapshots> {
  const rows = await db.query<{ t: Buffer; n: string; ts: string; l: string; u: string }>(
    `SELECT l1_token AS t, block_number AS n, block_timestamp AS ts, liquid_reserves::text AS l,
            utilized_reserves::text AS u
     FROM crosschain.hub_pool_snapshots
     WHERE l1_token IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)
     ORDER BY l1_token, block_timestamp, block_number`,
    [[...new Set(l1Tokens.map((t) => hexDigits(t).toLowerCase()))]],
  );
  const byToken = new Map<string, SnapshotPoint[]>();
  for (const row of rows) {
    const key = byteaToHex(row.t);
    const points = byToken.get(key) ?? [];
    if (points.length === 0) byToken.set(key, points);
    points.push({
      blockNumber: BigInt(row.n),
      blockTimestamp: BigInt(row.ts),
      reserves: { liquidReserves: BigInt(row.l), utilizedReserves: BigInt(row.u) },
    });
  }
  return byToken;
}

/**
 * The snapshot a deposit quoted at `quoteTimestamp` was priced from: the latest with timestamp ≤ it; a quote
 * older than every snapshot takes the earliest (the closest state known). Undefined without snapshots.
 */
export function snapshotAt(points: readonly SnapshotPoint[] | undefined, quoteTimestamp: bigint) {
  if (!points?.length) return undefined;
  let lo = 0;
  let hi = points.length - 1;
  if (points[0]!.blockTimestamp > quoteTimestamp) return points[0];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (points[mid]!.blockTimestamp <= quoteTimestamp) lo = mid;
    else hi = mid - 1;
  }
  return points[lo];
}

/** The deposit fields the LP fee depends on. */
export interface LpFeeDeposit {
  relayHash: Hex;
  originChainId: number;
  destinationChainId: number;
  /** The input token as an address on the origin chain. */
  inputToken: Address;
  inputAmount: bigint;
  quoteTimestamp: bigint;
}

/** What pricing needs besides the reserves; the rate configs are the config store's, as the quotes read them. */
export interface LpFeePricing {
  tokenMap: TokenMap;
  hubChainId: number;
  /** `AcrossConfigStore.l1TokenConfig` of an L1 token, parsed (`parseL1TokenConfig`); undefined = default model. */
  rateConfigOf(l1Token: Address): L1TokenRateConfig | undefined;
  decimalsOf(chainId: number, token: Address): number | undefined;
}

/** A deposit's fee pct (1e18-scaled) and the hub block whose reserves priced it. */
export interface RealizedLpFee {
  lpFeePct: bigint;
  hubBlock: bigint;
}

/**
 * The realized LP fee pct of a deposit, exactly as the quote path computes it (`computeLpFee` with
 * `resolveRateModel` for the route), from the snapshot of {@link snapshotAt}. Throws when the token is not
 * routed or has no snapshot: a fee must never be guessed, since it is stored for good.
 */
export function realizedLpFeePct(snapshots: HubSnapshots, deposit: LpFeeDeposit, pricing: LpFeePricing): RealizedLpFee {
  const l1Token = pricing.tokenMap.l1TokenOf(deposit.originChainId, deposit.inputToken);
  if (!l1Token) throw new Error(`LP fee: ${deposit.inputToken} on ${deposit.originChainId} has no L1 token`);
  const point = snapshotAt(snapshots.get(l1Token.toLowerCase()), deposit.quoteTimestamp);
  if (!point) throw new Error(`LP fee: no HubPool snapshot of ${l1Token}`);
  const inputDecimals = pricing.decimalsOf(deposit.originChainId, deposit.inputToken);
  if (inputDecimals === undefined) {
    throw new Error(`LP fee: unknown decimals of ${deposit.inputToken} on ${deposit.originChainId}`);
  }
  const { pct } = computeLpFee({
    amount: deposit.inputAmount,
    inputDecimals,
    l1Decimals: pricing.decimalsOf(pricing.hubChainId, l1Token) ?? inputDecimals,
    reserves: point.reserves,
    rateModel: resolveRateModel(pricing.rateConfigOf(l1Token), deposit.originChainId, deposit.destinationChainId),
  });
  return { lpFeePct: pct, hubBlock: point.blockNumber };
}

/**
 * The stored LP fee pct of every given deposit, pricing (and storing) only those without one: a fee is
 * written once per relay hash and never recomputed. A concurrent writer that stored a fee first wins; its
 * value is returned. Deposits whose input token has no L1 token are left out (they are not settled).
 */
export async function ensureDepositLpFees(
  db: Queryable,
  deposits: readonly LpFeeDeposit[],
  pricing: LpFeePricing,
): Promise<Map<Hex, bigint>> {
  const fees = await readLpFees(
    db,
    deposits.map((d) => d.relayHash),
  );
  const missing = deposits.filter(
    (d) => !fees.has(d.relayHash.toLowerCase() as Hex) && pricing.tokenMap.l1TokenOf(d.originChainId, d.inputToken),
  );
  if (missing.length === 0) return fees;
  const l1Tokens = missing.map((d) => pricing.tokenMap.l1TokenOf(d.originChainId, d.inputToken)!);
  const snapshots = await loadHubSnapshots(db, l1Tokens);
  const priced = missing.map((d) => ({ d, fee: realizedLpFeePct(snapshots, d, pricing) }));
  await db.query(
    `INSERT INTO crosschain.deposit_lp_fees (relay_hash, lp_fee_pct, hub_block)
     SELECT decode(h, 'hex'), p, b FROM unnest($1::text[], $2::numeric[], $3::bigint[]) AS f(h, p, b)
     ON CONFLICT (relay_hash) DO NOTHING`,
    [
      priced.map((x) => hexDigits(x.d.relayHash).toLowerCase()),
      priced.map((x) => x.fee.lpFeePct.toString()),
      priced.map((x) => x.fee.hubBlock.toString()),
    ],
  );
  // Read back rather than trust what was computed: a row stored concurrently keeps its own value.
  for (const [hash, pct] of await readLpFees(
    db,
    missing.map((d) => d.relayHash),
  ))
    fees.set(hash, pct);
  return fees;
}

/** Stored fee pcts by lower-case relay hash. */
async function readLpFees(db: Queryable, relayHashes: readonly Hex[]): Promise<Map<Hex, bigint>> {
  const fees = new Map<Hex, bigint>();
  if (relayHashes.length === 0) return fees;
  const rows = await db.query<{ h: string; p: string }>(
    `SELECT encode(relay_hash, 'hex') AS h, lp_fee_pct::text AS p FROM crosschain.deposit_lp_fees
     WHERE relay_hash IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
    [relayHashes.map((h) => hexDigits(h).toLowerCase())],
  );
  for (const row of rows) fees.set(`0x${row.h}`, BigInt(row.p));
  return fees;
}
