/**
 * The exchange's matching rate in-process on one core (goal ≥ 200k orders/s): a pre-generated, seeded flow of
 * commands run through one `OrderBook` that starts with depth (BENCH_MATCHING_DEPTH resting orders on 500
 * levels a side outside the flow's price range), timed without generating the flow.
 * - `mixed` (the goal): limit and market orders of every time in force, and cancels of recent orders;
 * - `full` (for information): also stops, replaces and day expiries, with the built-in market maker observing
 *   every event and requoting around a drifting reference every 20 commands.
 * Baseline, the same run: the same `mixed` flow on the same starting book through the plainest matcher, a
 * sorted array of orders per side without events (`sortedArrayBook.ts`). Median of BENCH_MATCHING_ROUNDS rounds.
 */
import { MarketMaker } from "../../packages/brokerage/src/market/exchange/marketMaker.ts";
import { OrderBook } from "../../packages/brokerage/src/market/exchange/orderBook.ts";
import {
  applyFlowCommand,
  type FlowCommand,
  type FlowMix,
  randomOrderFlow,
  seededRandom,
} from "../../packages/brokerage/src/testing/randomOrderFlow.ts";
import { SortedArrayBook } from "./sortedArrayBook.ts";

const MID = 20_000; // $200.00 in cents
const RANGE = 10;
const SHARE = 1_000_000_000; // units

export interface MatchingRun {
  commands: number;
  ordersPerSec: number;
  events: number;
  fills: number;
  restingAtEnd: number;
}

export interface MatchingResult {
  commands: number;
  depth: number;
  rounds: number;
  mixed: MatchingRun;
  baseline: { ordersPerSec: number; fills: number; restingAtEnd: number };
  ratio: number;
  full: MatchingRun;
  /** For information: generating the flow (not timed in the runs). */
  generationPerSec: number;
}

function generate(count: number, mix: Partial<FlowMix>, seed: number): { commands: FlowCommand[]; perSec: number } {
  const next = randomOrderFlow({
    random: seededRandom(seed),
    mid: MID,
    priceRangeTicks: RANGE,
    accounts: 1_000,
    maxQty: 100 * SHARE,
    mix,
  });
  const started = performance.now();
  const commands = Array.from({ length: count }, next);
  return { commands, perSec: count / ((performance.now() - started) / 1000) };
}

/** `depth` resting orders spread over 500 levels a side just outside the flow's prices, 100–700 shares each. */
function depthOrders(depth: number): FlowCommand[] {
  return Array.from({ length: depth }, (_, i) => {
    const away = RANGE + 2 + (i % 500);
    const buy = i % 2 === 0;
    return {
      kind: "submit",
      request: {
        id: `depth${i}`,
        accountId: "depth",
        side: buy ? "buy" : "sell",
        type: "limit",
        qty: BigInt(100 * SHARE * (1 + (i % 7))),
        limitPrice: buy ? MID - away : MID + away,
        timeInForce: "gtc",
      },
    };
  });
}

function deepBook(depth: number): OrderBook {
  const book = new OrderBook("BENCH");
  for (const c of depthOrders(depth)) applyFlowCommand(book, c, 0);
  return book;
}

function runBook(commands: FlowCommand[], depth: number, withMaker: boolean): MatchingRun {
  const book = deepBook(depth);
  const maker = withMaker
    ? new MarketMaker(book, {
        accountId: "maker",
        levels: 10,
        halfSpreadTicks: 1,
        levelSpacingTicks: 1,
        baseQty: BigInt(10 * SHARE),
        sizeGrowth: 1.3,
        maxInventory: BigInt(10_000 * SHARE),
        maxSkewTicks: 5,
      })
    : undefined;
  let events = 0;
  let fills = 0;
  let reference = MID;
  const started = performance.now();
  for (let i = 0; i < commands.length; i++) {
    const produced = applyFlowCommand(book, commands[i] as FlowCommand, i);
    events += produced.length;
    for (const e of produced) if (e.type === "fill") fills++;
    if (maker) {
      maker.observe(produced);
      if (i % 20 === 0) {
        reference += ((i * 7919) % 3) - 1; // a deterministic drift of -1, 0 or +1 tick
        events += maker.quote(reference, i).length;
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    commands: commands.length,
    ordersPerSec: Math.round(commands.length / seconds),
    events,
    fills,
    restingAtEnd: book.openOrderCount,
  };
}

function runBaseline(commands: FlowCommand[], depth: number): MatchingResult["baseline"] {
  const book = new SortedArrayBook();
  for (const c of depthOrders(depth)) book.apply(c);
  const started = performance.now();
  for (let i = 0; i < commands.length; i++) book.apply(commands[i] as FlowCommand);
  const seconds = (performance.now() - started) / 1000;
  return { ordersPerSec: Math.round(commands.length / seconds), fills: book.fills, restingAtEnd: book.openOrderCount };
}

const median = <T>(items: T[], by: (x: T) => number): T =>
  [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)] as T;

/** Runs the matching benchmark (in this process; nothing else should run meanwhile). */
export function matchingBenchmark(): MatchingResult {
  const count = Number(process.env.BENCH_MATCHING_ORDERS ?? 1_000_000);
  const depth = Number(process.env.BENCH_MATCHING_DEPTH ?? 10_000);
  const rounds = Number(process.env.BENCH_MATCHING_ROUNDS ?? 3);
  const mixed = generate(count, { limit: 70, market: 12, stop: 0, cancel: 18, replace: 0, expire: 0 }, 1);
  const full = generate(count, { expire: 0.05 }, 2);
  // Warm-up (JIT) on a slice, then the measured rounds on fresh books.
  runBook(mixed.commands.slice(0, 100_000), depth, true);
  runBaseline(mixed.commands.slice(0, 100_000), depth);
  const mixedRuns: MatchingRun[] = [];
  const baselines: MatchingResult["baseline"][] = [];
  const fullRuns: MatchingRun[] = [];
  for (let r = 0; r < rounds; r++) {
    mixedRuns.push(runBook(mixed.commands, depth, false));
    baselines.push(runBaseline(mixed.commands, depth));
    fullRuns.push(runBook(full.commands, depth, true));
  }
  const mixedRun = median(mixedRuns, (x) => x.ordersPerSec);
  const baseline = median(baselines, (x) => x.ordersPerSec);
  return {
    commands: count,
    depth,
    rounds,
    mixed: mixedRun,
    baseline,
    ratio: Math.round((mixedRun.ordersPerSec / baseline.ordersPerSec) * 1000) / 1000,
    full: median(fullRuns, (x) => x.ordersPerSec),
    generationPerSec: Math.round(mixed.perSec),
  };
}
