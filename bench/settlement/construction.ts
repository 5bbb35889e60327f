/**
 * One driver's settlement measurement (run by run.ts in a child process of its own, so its peak RSS is its
 * own): a fresh, migrated database COPY-loaded with BENCH_SETTLEMENT_DEPOSITS (100k) deposits over 7 chains
 * and 5 tokens (seeded), then each step of `buildNextBundle` timed on its own, in its order, against the
 * time to read the same rows plainly (`SELECT *` of deposits, fills and slow fill requests, same driver).
 *
 * Usage: tsx bench/settlement/construction.ts <pglite|postgres> <result.json>
 */
import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { crosschainService } from "@platform/crosschain";
import { copyHexField, createCopyLines, type Database, kernelMigrations, migrate } from "@platform/kernel";
import { type Address, type Hex, pad, toHex } from "viem";
import type { RateModel } from "../../packages/crosschain/src/domain/fees/lpFee.ts";
import { buildBundle } from "../../packages/crosschain/src/settlement/buildBundle.ts";
import {
  bookItems,
  loadBundleItems,
  loadUnpricedDeposits,
} from "../../packages/crosschain/src/settlement/bundleData.ts";
import {
  ensureDepositLpFees,
  type LpFeePricing,
  loadHubSnapshots,
  realizedLpFeePct,
  recordHubSnapshot,
} from "../../packages/crosschain/src/settlement/lpFees.ts";
import type { BuiltBundle, BundleItem, TokenMap } from "../../packages/crosschain/src/settlement/types.ts";
import { createBundlesRepository } from "../../packages/crosschain/src/store/bundlesRepository.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";

const driver = process.argv[2] as Driver;
const out = process.argv[3] as string;
const DEPOSITS = Number(process.env.BENCH_SETTLEMENT_DEPOSITS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

export const CHAINS = [1, 10, 137, 8453, 42161, 999, 1337];
const HUB = 1;
/** L1 tokens (on the hub) and their decimals. */
const L1_TOKENS = [0x10, 0x20, 0x30, 0x40, 0x50].map((b) => `0x${b.toString(16).repeat(20)}` as Address);
const DECIMALS = [6, 6, 18, 18, 8];
/** The token of an L1 token on a chain: itself on the hub, else a distinct address per (chain, token). */
const l2Of = (chainId: number, l1: Address): Address =>
  chainId === HUB ? l1 : (`0x${(chainId % 256).toString(16).padStart(2, "0")}${l1.slice(4)}` as Address);
const l1ByL2 = new Map<string, Address>();
for (const c of CHAINS) for (const t of L1_TOKENS) l1ByL2.set(`${c} ${l2Of(c, t)}`, t);
const tokenMap: TokenMap = {
  l1TokenOf: (chainId, token) => l1ByL2.get(`${chainId} ${token.toLowerCase()}`),
  l2TokenOf: (chainId, l1) => (CHAINS.includes(chainId) ? l2Of(chainId, l1.toLowerCase() as Address) : undefined),
};
const decimalsOf = (chainId: number, token: Address) => {
  const l1 = chainId === HUB ? token.toLowerCase() : tokenMap.l1TokenOf(chainId, token);
  const i = L1_TOKENS.indexOf(l1 as Address);
  return i < 0 ? undefined : DECIMALS[i];
};
const rateModel: RateModel = { UBar: 65n * 10n ** 16n, R0: 0n, R1: 8n * 10n ** 16n, R2: 10n ** 18n };
const pricing: LpFeePricing = { tokenMap, hubChainId: HUB, rateConfigOf: () => ({ rateModel }), decimalsOf };

/** Deterministic 32-bit PRNG (mulberry32). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The bundle's end: every chain's end block and timestamp. */
const END_BLOCK = 1_000_000n;
const END_TIME = 1_800_000_000n;
/** HubPool snapshots: one per hour over the week before the end, per token. */
const SNAPSHOT_HOURS = 168;

const hex32 = (seed: string) => `0x${createHash("sha256").update(seed).digest("hex")}` as Hex;
const b32 = (a: Hex) => copyHexField(pad(a, { size: 32 }));

/**
 * COPY-loads the deposits, fills (fast, ~93 %), slow fill requests (~2 %, not filled, not expired) and
 * unfilled expired deposits (~5 %); the rest (~0.5 %) are pending. Returns the counts.
 */
async function seed(db: Database) {
  const rnd = prng(20240601);
  const deposits = createCopyLines(DEPOSITS * 700);
  const fills = createCopyLines(DEPOSITS * 400);
  const slow = createCopyLines(DEPOSITS * 10);
  const counts = { deposits: DEPOSITS, fills: 0, expired: 0, slowRequests: 0, pending: 0 };
  const relayers = Array.from({ length: 40 }, (_, i) => b32(toHex(0xe1000 + i)));
  const zero = b32("0x00");
  for (let i = 0; i < DEPOSITS; i++) {
    const origin = CHAINS[Math.floor(rnd() * CHAINS.length)] as number;
    let destination = CHAINS[Math.floor(rnd() * (CHAINS.length - 1))] as number;
    if (destination === origin) destination = CHAINS[CHAINS.length - 1] as number;
    const t = Math.floor(rnd() * L1_TOKENS.length);
    const l1 = L1_TOKENS[t] as Address;
    const unit = 10n ** BigInt(DECIMALS[t] as number);
    // 1 to 100,000 whole tokens, with 6 random fractional digits.
    const amount =
      BigInt(1 + Math.floor(rnd() * 100_000)) * unit + (BigInt(Math.floor(rnd() * 1e6)) * unit) / 10n ** 6n;
    const depositId = BigInt(i + 1);
    const relayHash = hex32(`${origin}:${depositId}`);
    const r = rnd();
    const kind = r < 0.05 ? "expired" : r < 0.07 ? "slow" : r < 0.075 ? "pending" : "filled";
    const block = END_BLOCK - BigInt(Math.floor(rnd() * 50_000));
    const blockTime = END_TIME - (END_BLOCK - block) * 2n;
    const quote = blockTime - BigInt(Math.floor(rnd() * 600));
    const fillDeadline = kind === "expired" ? END_TIME - 1n - BigInt(Math.floor(rnd() * 3600)) : END_TIME + 21_600n;
    const depositor = b32(toHex(0xd0000 + Math.floor(rnd() * 20_000)));
    deposits.push(
      `${origin}\t${depositId}\t${destination}\t${copyHexField(relayHash)}\t${depositor}\t${depositor}\t${zero}\t` +
        `${b32(l2Of(origin, l1))}\t${b32(l2Of(destination, l1))}\t${amount}\t${(amount * 999n) / 1000n}\t${quote}\t` +
        `${fillDeadline}\t0\t\\\\x\t${zero}\t${copyHexField(hex32(`tx ${relayHash}`))}\t0\t0\t${block}\t${blockTime}\n`,
    );
    if (kind === "filled") {
      counts.fills++;
      // Repaid on a bundle chain mostly; 3 % ask for an unrouted chain and fall back to the origin.
      const repayment = rnd() < 0.03 ? 424242 : (CHAINS[Math.floor(rnd() * CHAINS.length)] as number);
      const fillBlock = block + 10n < END_BLOCK ? block + 10n : END_BLOCK;
      fills.push(
        `${copyHexField(relayHash)}\t${destination}\t${origin}\t${depositId}\t${relayers[Math.floor(rnd() * relayers.length)]}\t` +
          `${repayment}\t0\t${depositor}\t${(amount * 999n) / 1000n}\tf\t${copyHexField(hex32(`fill ${relayHash}`))}\t0\t` +
          `${fillBlock}\t${blockTime + 20n}\n`,
      );
    } else if (kind === "slow") {
      counts.slowRequests++;
      slow.push(
        `${copyHexField(relayHash)}\t${destination}\t${copyHexField(hex32(`slow ${relayHash}`))}\t${block + 5n}\n`,
      );
    } else if (kind === "expired") counts.expired++;
    else counts.pending++;
  }
  const started = performance.now();
  await db.copyFrom(
    `COPY crosschain.deposits (origin_chain_id, deposit_id, destination_chain_id, relay_hash, depositor, recipient,
       exclusive_relayer, input_token, output_token, input_amount, output_amount, quote_timestamp, fill_deadline,
       exclusivity_deadline, message, message_hash, tx_hash, tx_index, log_index, block_number, block_timestamp) FROM STDIN`,
    deposits.bytes(),
  );
  await db.copyFrom(
    `COPY crosschain.fills (relay_hash, destination_chain_id, origin_chain_id, deposit_id, relayer, repayment_chain_id,
       fill_type, updated_recipient, updated_output_amount, calls_failed, tx_hash, log_index, block_number,
       block_timestamp) FROM STDIN`,
    fills.bytes(),
  );
  await db.copyFrom(
    "COPY crosschain.slow_fill_requests (relay_hash, destination_chain_id, tx_hash, block_number) FROM STDIN",
    slow.bytes(),
  );
  // Hourly HubPool snapshots of every token: reserves drift, utilization between ~10 % and ~80 %.
  for (let h = 0; h <= SNAPSHOT_HOURS; h++) {
    await recordHubSnapshot(db, {
      blockNumber: BigInt(20_000_000 + h * 300),
      blockTimestamp: END_TIME - BigInt((SNAPSHOT_HOURS - h) * 3600),
      reserves: L1_TOKENS.map((l1Token, t) => {
        const unit = 10n ** BigInt(DECIMALS[t] as number);
        const liquid = BigInt(50_000_000 + Math.floor(rnd() * 50_000_000)) * unit;
        return {
          l1Token,
          liquidReserves: liquid,
          utilizedReserves: (liquid * BigInt(10 + Math.floor(rnd() * 70))) / 100n,
          undistributedLpFees: 0n,
        };
      }),
    });
  }
  await db.exec("ANALYZE");
  return { ...counts, loadMs: round(performance.now() - started) };
}

const round = (x: number) => Math.round(x * 10) / 10;
const ranges = CHAINS.map((chainId) => ({
  chainId,
  start: 0n,
  end: END_BLOCK,
  endHash: hex32(`end ${chainId}`),
  endTimestamp: END_TIME,
}));
const endTimestamps = new Map(CHAINS.map((c) => [c, END_TIME]));
const routedChains = new Set(CHAINS);

/** Wall time of `f`, in ms, and this process's CPU time meanwhile (the database server's not included). */
async function timed<T>(f: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await f();
  const used = process.cpuUsage(cpu);
  sampleRss();
  return { ms: round(performance.now() - started), cpuMs: round((used.user + used.system) / 1000), value };
}
/** The best of a step's rounds (the baseline's too): on a shared 2-core machine the slower rounds are the noise. */
const best = (xs: number[]) => Math.min(...xs);

/**
 * The peak RSS of each phase (MB), sampled every 20 ms and at the end of every timed step: PGlite answers
 * without I/O, so timers may not run during a whole PGlite phase.
 */
const phasePeaks: Record<string, number> = {};
let phase = "setup";
const sampleRss = () => {
  const mb = Math.round(process.memoryUsage.rss() / 1e6);
  if (mb > (phasePeaks[phase] ?? 0)) phasePeaks[phase] = mb;
};
const sampler = setInterval(sampleRss, 20);
const enter = (name: string) => {
  phase = name;
};

const bench = benchDatabase("settlement");
if (driver === "pglite") rmSync(bench.pgliteDir, { recursive: true, force: true });
else if (!(await bench.preparePostgres({ fresh: true }))) throw new Error("PostgreSQL is not answering");
const db = await bench.open(driver);
const loadBefore = loadavg()[0] as number;
try {
  await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
  const rows = await seed(db);
  const log = (s: string) => process.stdout.write(`  ${driver}: ${s}\n`);
  log(
    `loaded ${rows.deposits} deposits, ${rows.fills} fills, ${rows.slowRequests} slow fill requests ` +
      `(${rows.expired} expired, ${rows.pending} pending) in ${rows.loadMs} ms`,
  );

  enter("baseline");
  // (a) The baseline: the same rows read plainly, every column, through the same driver.
  const baselineRuns: number[] = [];
  const baselineCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = await timed(async () => {
      const d = await db.query("SELECT * FROM crosschain.deposits");
      const f = await db.query("SELECT * FROM crosschain.fills");
      const s = await db.query("SELECT * FROM crosschain.slow_fill_requests");
      return d.length + f.length + s.length;
    });
    baselineRuns.push(t.ms);
    baselineCpu.push(t.cpuMs);
  }
  const baselineMs = best(baselineRuns);
  log(`baseline (SELECT * of deposits, fills, slow fill requests): ${baselineMs} ms`);

  enter("lpFees");
  // (b) LP fees, the first time: every filled or slow-filled deposit is priced and stored.
  const unpriced = await timed(() => loadUnpricedDeposits(db, { ranges, endTimestamps }));
  const fees = await timed(() => ensureDepositLpFees(db, unpriced.value, pricing));
  // The pricing alone (no I/O: snapshot search, rate model, computeLpFee with decimal.js), on a sample.
  const snapshots = await loadHubSnapshots(db, L1_TOKENS);
  const sample = unpriced.value.slice(0, 10_000);
  const pure = await timed(() => {
    for (const d of sample) realizedLpFeePct(snapshots, d, pricing);
  });
  const usPerDeposit = round((pure.ms * 1000) / Math.max(1, sample.length));
  const again = await timed(async () =>
    ensureDepositLpFees(db, await loadUnpricedDeposits(db, { ranges, endTimestamps }), pricing),
  );
  log(
    `loadUnpricedDeposits ${unpriced.value.length} in ${unpriced.ms} ms, ensureDepositLpFees ${fees.ms} ms ` +
      `(pricing alone ${usPerDeposit} µs/deposit); ` +
      `both again, all priced: ${again.ms} ms`,
  );

  enter("loadBundleItems");
  // (c) loadBundleItems (read-only: repeated).
  const loadRuns: number[] = [];
  const loadCpu: number[] = [];
  let items: BundleItem[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = await timed(() =>
      loadBundleItems(db, { ranges, endTimestamps, tokenMap, routedChains, lpFeeOf: (h) => fees.value.get(h) }),
    );
    loadRuns.push(t.ms);
    loadCpu.push(t.cpuMs);
    items = t.value;
  }
  const loadMs = best(loadRuns);
  const kinds: Record<string, number> = {};
  for (const i of items) kinds[i.kind] = (kinds[i.kind] ?? 0) + 1;
  log(`loadBundleItems ${items.length} items ${JSON.stringify(kinds)}: ${loadMs} ms`);

  enter("buildBundle");
  // (d) buildBundle: leaves, encodings, the three trees, every proof (pure: repeated).
  const buildRuns: number[] = [];
  const buildCpu: number[] = [];
  let built: BuiltBundle | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    const t = await timed(() =>
      buildBundle({
        items,
        previousRunningBalances: [],
        tokenMap,
        maxRefundLeafSize: 25,
        maxPoolLeafSize: 25,
        chainIds: CHAINS,
      }),
    );
    buildRuns.push(t.ms);
    buildCpu.push(t.cpuMs);
    built = t.value;
  }
  const b = built as BuiltBundle;
  const buildMs = best(buildRuns);
  const leaves = {
    pool: b.poolRebalance.leaves.length,
    refund: b.relayerRefund.leaves.length,
    slow: b.slowRelay.leaves.length,
  };
  log(`buildBundle ${JSON.stringify(leaves)} leaves: ${buildMs} ms`);

  enter("booking");
  // (e) Booking, as buildNextBundle stores a bundle: insertBuilt (bundle row, every leaf with its proof, the
  // expired deposits' status changes) with bookItems inside, one transaction.
  const repo = createBundlesRepository(db);
  const slowHashes = new Map(
    items.filter((i) => i.kind === "slowFill").map((i) => [`${i.originChainId}:${i.depositId}`, i.relayHash]),
  );
  const slowRelayHashes = b.slowRelay.leaves.map(
    (l) => slowHashes.get(`${l.relayData.originChainId}:${l.relayData.depositId}`) as Hex,
  );
  const bookedIn: number[] = [];
  const bookRuns: number[] = [];
  const bookOnlyRuns: number[] = [];
  for (let r = 0; r < 1; r++) {
    if (r > 0) await db.exec("TRUNCATE crosschain.bundles, crosschain.bundle_items CASCADE");
    const t = await timed(() =>
      repo.insertBuilt(
        async () => {},
        ranges,
        b,
        async (tx, bundleId) => {
          const s = performance.now();
          await bookItems(tx, BigInt(bundleId), items);
          bookedIn.push(performance.now() - s);
        },
        slowRelayHashes,
      ),
    );
    bookRuns.push(t.ms);
    bookOnlyRuns.push(round(bookedIn[r] as number));
  }
  const bookMs = best(bookRuns);
  log(`booking (insertBuilt with bookItems): ${bookMs} ms, of which bookItems ${best(bookOnlyRuns)} ms`);

  // (g) The next bundle with nothing new: what every later tick pays to learn that, with this history booked
  // (each statement scans the events up to the end blocks against the ledger).
  enter("nextEmpty");
  const emptyRuns: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = await timed(async () => {
      const u = await loadUnpricedDeposits(db, { ranges, endTimestamps });
      const i = await loadBundleItems(db, { ranges, endTimestamps, tokenMap, routedChains });
      return u.length + i.length;
    });
    if (t.value !== 0) throw new Error(`the next bundle found ${t.value} rows after everything was booked`);
    emptyRuns.push(t.ms);
  }
  const emptyMs = best(emptyRuns);
  log(`next bundle, nothing new (loadUnpricedDeposits + loadBundleItems over the booked history): ${emptyMs} ms`);
  clearInterval(sampler);

  const constructionMs = round(loadMs + buildMs);
  const result = {
    driver,
    rows,
    baseline: {
      ms: baselineMs,
      runs: baselineRuns,
      processCpuMs: best(baselineCpu),
      rows: rows.deposits + rows.fills + rows.slowRequests,
    },
    lpFees: {
      deposits: unpriced.value.length,
      loadUnpricedMs: unpriced.ms,
      ensureMs: fees.ms,
      ensureProcessCpuMs: fees.cpuMs,
      pricingUsPerDeposit: usPerDeposit,
      alreadyPricedMs: again.ms,
      ratio: round((unpriced.ms + fees.ms) / baselineMs),
    },
    loadBundleItems: {
      ms: loadMs,
      runs: loadRuns,
      processCpuMs: best(loadCpu),
      items: items.length,
      kinds,
      ratio: round(loadMs / baselineMs),
    },
    buildBundle: {
      ms: buildMs,
      runs: buildRuns,
      processCpuMs: best(buildCpu),
      leaves,
      ratio: round(buildMs / baselineMs),
    },
    booking: {
      ms: bookMs,
      bookItemsMs: best(bookOnlyRuns),
      runs: bookRuns,
      ratio: round(bookMs / baselineMs),
    },
    nextBundleNothingNew: {
      ms: emptyMs,
      runs: emptyRuns,
      ratio: round(emptyMs / baselineMs),
      devnetIntervalPct: round((emptyMs / 5000) * 100),
    },
    construction: {
      ms: constructionMs,
      ratio: round(constructionMs / baselineMs),
      devnetIntervalPct: round((constructionMs / 5000) * 100),
      mainnetIntervalPct: round((constructionMs / 3_600_000) * 100),
    },
    /** The machine's 1-minute load average before and after (2 cores: above 2, other work competed). */
    loadAverage: [round(loadBefore), round(loadavg()[0] as number)],
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    /** Peak RSS while each phase ran ("setup": migrations and the COPY load with its generated rows). */
    phasePeakRssMB: phasePeaks,
  };
  writeFileSync(out, JSON.stringify(result));
} finally {
  await db.close();
}
