/**
 * What a bundle settles, read from the indexed events (docs/design/settlement.md §4.3): one query per item
 * kind (bundleQueries.ts) against the `bundle_items` ledger, so an event is settled in exactly one bundle
 * and a pre-fill or a late deposit is never lost. Addresses in the items are lower case.
 */
import { copyHexField, createCopyLines, type Queryable } from "@platform/kernel";
import { type Address, type Hex, keccak256, stringToHex, zeroAddress } from "viem";
import { applyPct } from "../domain/fees/fixedPoint.ts";
import {
  DEPOSITS_SQL,
  EXCESS_SLOW_FILLS_SQL,
  EXPIRED_SQL,
  FILL_REFUNDS_SQL,
  SLOW_FILLS_SQL,
  type TextRow,
  UNPRICED_DEPOSITS_SQL,
} from "./bundleQueries.ts";
import type { LpFeeDeposit } from "./lpFees.ts";
import type { BlockRange } from "./ranges.ts";
import type { BundleItem, TokenMap } from "./types.ts";

/** What {@link loadBundleItems} reads against. */
export interface BundleDataInput {
  ranges: readonly BlockRange[];
  /** The timestamp of every chain's end block: deadlines are judged on the destination's clock. */
  endTimestamps: ReadonlyMap<number, bigint>;
  tokenMap: TokenMap;
  /** Chains a refund may be paid on (enabled, with a spoke the HubPool routes to); others fall back to the origin. */
  routedChains: ReadonlySet<number>;
  /**
   * The realized LP fee pct (1e18-scaled) of a deposit by relay hash. Defaults to, and falls back on, the
   * stored `deposit_lp_fees` row; a fill or slow fill whose deposit has neither fails the load (run
   * `ensureDepositLpFees` on {@link loadUnpricedDeposits} first).
   */
  lpFeeOf?: (relayHash: Hex) => bigint | undefined;
}

/** The first word of a V5-tagged message (SpokePool `V5_MAGIC_PREFIX`), hex without 0x. */
const V5_MAGIC_PREFIX = keccak256(stringToHex("AcrossV5MessagePrefix.V1")).slice(2);

/** `[chain ids, end blocks]` and, with `withTimes`, the end timestamps (each statement binds what it uses). */
function params(input: Pick<BundleDataInput, "ranges" | "endTimestamps">, withTimes: boolean): unknown[] {
  const p: unknown[] = [input.ranges.map((r) => r.chainId), input.ranges.map((r) => r.end.toString())];
  if (!withTimes) return p;
  const times = input.ranges.map((r) => {
    const ts = input.endTimestamps.get(r.chainId);
    if (ts === undefined) throw new Error(`bundle data: no end timestamp for chain ${r.chainId}`);
    return ts.toString();
  });
  return [...p, times];
}

/** The space-separated fields of every row (see bundleQueries.ts for each statement's field order). */
async function rowsOf(db: Queryable, sql: string, p: unknown[]): Promise<Iterable<string[]>> {
  const rows = await db.query<TextRow>(sql, p);
  return (function* () {
    for (const row of rows) yield row.x.split(" ");
  })();
}

/** The address in a bytes32 (hex without 0x), or undefined when its upper 12 bytes are not zero. */
const evmAddress = (b32: string) =>
  b32.startsWith("000000000000000000000000") ? (`0x${b32.slice(24)}` as Address) : undefined;

const lower = (a: Address | undefined) => a?.toLowerCase() as Address | undefined;

/**
 * The token map's answers memoized per load: a map may checksum or search on every call, and a load asks
 * once per row (hundreds of thousands) about a handful of (chain, token) pairs.
 */
function memoTokenMap(tokenMap: TokenMap): TokenMap {
  const memo = (lookup: (chainId: number, token: Address) => Address | undefined) => {
    const cache = new Map<string, Address | undefined>();
    return (chainId: number, token: Address) => {
      const key = `${chainId} ${token}`;
      if (cache.has(key)) return cache.get(key);
      const answer = lower(lookup(chainId, token));
      cache.set(key, answer);
      return answer;
    };
  };
  return { l1TokenOf: memo(tokenMap.l1TokenOf.bind(tokenMap)), l2TokenOf: memo(tokenMap.l2TokenOf.bind(tokenMap)) };
}

/** An item from a row's leading fields (relay hash, origin, deposit id); one object shape for every kind. */
function item(
  kind: BundleItem["kind"],
  f: string[],
  chainId: number,
  l1Token: Address,
  l2Token: Address,
  payee: Address,
  amount: bigint,
  lpFee: bigint,
): BundleItem {
  const relayHash = `0x${f[0]}` as Hex;
  return {
    kind,
    relayHash,
    originChainId: Number(f[1]),
    depositId: BigInt(f[2]!),
    chainId,
    l1Token,
    l2Token,
    payee,
    amount,
    lpFee,
  };
}

/**
 * Every unbooked item at or below the ranges' end blocks, in kind order (deposits, fill refunds, expired
 * refunds, slow fills, excess slow fills). Skipped, and so never booked: items whose token has no L1 token,
 * and refunds or slow fills whose payee is not an EVM address (a bytes32 with nonzero upper bytes).
 */
export async function loadBundleItems(db: Queryable, input: BundleDataInput): Promise<BundleItem[]> {
  const tokenMap = memoTokenMap(input.tokenMap);
  const { routedChains, lpFeeOf } = input;
  const p2 = params(input, false);
  const p3 = params(input, true);
  const items: BundleItem[] = [];
  // Every row starts with: relay hash, origin, deposit id, input token, input amount.
  const l1Of = (f: string[]) => tokenMap.l1TokenOf(Number(f[1]), `0x${f[3]}`);
  const feeOf = (f: string[], stored: string) => {
    const pct = lpFeeOf?.(`0x${f[0]}`) ?? (stored === "-" ? undefined : BigInt(stored));
    if (pct === undefined) throw new Error(`bundle data: no LP fee for deposit 0x${f[0]}`);
    return applyPct(BigInt(f[4]!), pct);
  };

  for (const f of await rowsOf(db, DEPOSITS_SQL, p2)) {
    const l1Token = l1Of(f);
    if (l1Token) items.push(item("deposit", f, Number(f[1]), l1Token, `0x${f[3]}`, zeroAddress, BigInt(f[4]!), 0n));
  }

  for (const f of await rowsOf(db, FILL_REFUNDS_SQL, p2)) {
    const l1Token = l1Of(f);
    const payee = evmAddress(f[6]!);
    if (!l1Token || !payee) continue;
    const origin = Number(f[1]);
    const wanted = f[5]!.length <= 15 ? Number(f[5]) : Number.NaN;
    const wantedToken = routedChains.has(wanted) ? tokenMap.l2TokenOf(wanted, l1Token) : undefined;
    const chainId = wantedToken ? wanted : origin;
    const l2Token = wantedToken ?? tokenMap.l2TokenOf(origin, l1Token) ?? (`0x${f[3]}` as Address);
    const lpFee = feeOf(f, f[7]!);
    items.push(item("fillRefund", f, chainId, l1Token, l2Token, payee, BigInt(f[4]!) - lpFee, lpFee));
  }

  for (const f of await rowsOf(db, EXPIRED_SQL, p3)) {
    const l1Token = l1Of(f);
    const payee = evmAddress(f[5]!);
    if (l1Token && payee)
      items.push(item("expiredRefund", f, Number(f[1]), l1Token, `0x${f[3]}`, payee, BigInt(f[4]!), 0n));
  }

  for (const f of await rowsOf(db, SLOW_FILLS_SQL, [...p3, V5_MAGIC_PREFIX])) {
    const slow = slowFillItem(f, tokenMap, feeOf(f, f[14]!));
    if (slow) items.push(slow);
  }

  for (const f of await rowsOf(db, EXCESS_SLOW_FILLS_SQL, [])) {
    const chainId = Number(f[5]);
    const l2Token = `0x${f[6]}` as Address;
    const l1Token = tokenMap.l1TokenOf(chainId, l2Token);
    if (l1Token) items.push(item("excessSlowFill", f, chainId, l1Token, l2Token, zeroAddress, BigInt(f[4]!), 0n));
  }
  return items;
}

/** A slow fill's leaf data, or undefined when its input and output tokens are not the same L1 token. */
function slowFillItem(f: string[], tokenMap: TokenMap, lpFee: bigint): BundleItem | undefined {
  const [origin, destination] = [Number(f[1]), Number(f[5])];
  const [dep, rec, ex, it, ot] = [f[6]!, f[7]!, f[8]!, f[9]!, f[10]!];
  const l2Token = `0x${ot.slice(24)}` as Address;
  const l1Token = tokenMap.l1TokenOf(origin, `0x${f[3]}`);
  const payee = evmAddress(rec);
  if (!payee || !l1Token || l1Token !== tokenMap.l1TokenOf(destination, l2Token)) return undefined;
  const inputAmount = BigInt(f[4]!);
  return {
    ...item("slowFill", f, destination, l1Token, l2Token, payee, inputAmount - lpFee, lpFee),
    relayData: {
      depositor: `0x${dep}` as Hex,
      recipient: `0x${rec}` as Hex,
      exclusiveRelayer: `0x${ex}` as Hex,
      inputToken: `0x${it}` as Hex,
      outputToken: `0x${ot}` as Hex,
      inputAmount,
      outputAmount: BigInt(f[11]!),
      originChainId: BigInt(origin),
      depositId: BigInt(f[2]!),
      fillDeadline: Number(f[12]),
      exclusivityDeadline: Number(f[13]),
      message: `0x${f[15] ?? ""}` as Hex,
    },
  };
}

/**
 * Deposits that this bundle's fill refunds or slow fills need an LP fee for and that have none stored:
 * what to pass to `ensureDepositLpFees` before {@link loadBundleItems}.
 */
export async function loadUnpricedDeposits(
  db: Queryable,
  input: Pick<BundleDataInput, "ranges" | "endTimestamps">,
): Promise<LpFeeDeposit[]> {
  const deposits: LpFeeDeposit[] = [];
  for (const f of await rowsOf(db, UNPRICED_DEPOSITS_SQL, params(input, false))) {
    deposits.push({
      relayHash: `0x${f[0]}`,
      originChainId: Number(f[1]),
      destinationChainId: Number(f[2]),
      inputToken: `0x${f[3]}`,
      inputAmount: BigInt(f[4]!),
      quoteTimestamp: BigInt(f[5]!),
    });
  }
  return deposits;
}

const BOOK_COLUMNS =
  "bundle_id, kind, relay_hash, origin_chain_id, deposit_id, chain_id, l1_token, l2_token, payee, amount, lp_fee";

/**
 * Books `items` in the ledger under `bundleId` with one COPY. An item booked before (by any bundle) fails
 * the whole write with a unique violation: booking twice would pay twice, so the caller's transaction must
 * roll back rather than skip it. Call inside the transaction that stores the bundle (through its `tx`).
 */
export async function bookItems(tx: Queryable, bundleId: bigint, items: readonly BundleItem[]): Promise<void> {
  if (items.length === 0) return;
  const lines = createCopyLines();
  const h = copyHexField;
  for (const x of items) {
    lines.push(
      `${bundleId}\t${x.kind}\t${h(x.relayHash)}\t${x.originChainId}\t${x.depositId}\t${x.chainId}\t${h(x.l1Token)}\t${h(x.l2Token)}\t${h(x.payee)}\t${x.amount}\t${x.lpFee}\n`,
    );
  }
  await tx.copyFrom(`COPY crosschain.bundle_items (${BOOK_COLUMNS}) FROM STDIN`, lines.bytes());
}
