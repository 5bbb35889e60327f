/**
 * A seeded, reproducible price per symbol: geometric Brownian motion without drift in the median, on a
 * grid of one step per second, with quotes around it and a tape of trade prints.
 *
 * `priceAt(symbol, time)` is a pure function of (seed, symbol, time). The walk is built top-down as a
 * dyadic Brownian bridge over 2^32 steps from the Unix epoch (to 2106): the end point is drawn first, then
 * every interval's midpoint given its two ends, with the noise of a point drawn from a counter-based hash of
 * (seed, symbol, point). Reaching any step takes one descent of at most 32 levels, never a walk from the
 * epoch, and the result does not depend on which prices were asked for before or in which order.
 * Trade-off: a cold lookup costs ~32 normal draws (microseconds) where a checkpointed forward walk would
 * cost one per step since the last checkpoint plus the checkpoint's memory; to make the common case (times
 * close to the previous one) cheap, each symbol keeps its last descent and resumes from the deepest
 * interval that still contains the new step: 33 intervals per symbol, a cache that changes no value.
 * Prices wander as GBM does: the median stays at the reference price, the spread of outcomes grows with
 * the square root of the distance from the anchor time (±25 % a year for a 25 % volatility).
 */
import type { AssetUniverse, ListedAsset } from "./assets.ts";
import { type RandomKey, randomKey, randomNormal, randomUniform } from "./counterRandom.ts";
import { roundToTick, tickFor, tickOf } from "./priceTicks.ts";

/** One step of the price grid: prices change at most once a second. */
export const PRICE_STEP_MS = 1_000;
/** Where the reference prices hold exactly: 2026-01-01T00:00:00Z. */
export const DEFAULT_ANCHOR_TIME = Date.UTC(2026, 0, 1);

const LEVELS = 32;
const SPAN = 2 ** LEVELS;
const SECONDS_PER_YEAR = 365.25 * 86_400;
/** The longest window `tradesBetween` walks, one step at a time. */
const MAX_TAPE_WINDOW_MS = 7 * 86_400_000;
const [BRIDGE_STREAM, QUOTE_STREAM, TRADE_STREAM] = [1, 10, 20];
/** The bridge's standard deviation at the midpoint of a level's interval: sqrt(length / 4). */
const MIDPOINT_STD = Array.from({ length: LEVELS }, (_, depth) => Math.sqrt(2 ** (LEVELS - depth) / 4));

/** The best bid and offer at an instant. Prices on the asset's tick; sizes in shares or coins. */
export interface Quote {
  symbol: string;
  timestamp: number;
  bidPrice: number;
  bidSize: number;
  askPrice: number;
  askSize: number;
}

/** A print on the simulated tape: someone bought at the ask or sold at the bid. */
export interface TradePrint {
  symbol: string;
  /** Unique per symbol: the step of the print (at most one per second). */
  id: number;
  timestamp: number;
  price: number;
  size: number;
  takerSide: "buy" | "sell";
}

/** A symbol's random source and its last descent through the bridge. */
interface SymbolState {
  listing: ListedAsset;
  key: RandomKey;
  volatilityPerStep: number;
  anchorLevel: number;
  depth: number;
  from: Float64Array;
  to: Float64Array;
  fromValue: Float64Array;
  toValue: Float64Array;
}

/** What a price process is made of. */
export interface PriceProcessOptions {
  seed: string | number;
  universe: AssetUniverse;
  /** Instant where every price equals its listing's reference price; default `DEFAULT_ANCHOR_TIME`. */
  anchorTime?: number;
}

/** The market's prices, quotes and tape; one instance per market (it caches per symbol). */
export class PriceProcess {
  readonly #seed: string | number;
  readonly #universe: AssetUniverse;
  readonly #anchorStep: number;
  readonly #states = new Map<string, SymbolState>();

  constructor(options: PriceProcessOptions) {
    this.#seed = options.seed;
    this.#universe = options.universe;
    this.#anchorStep = stepOf(options.anchorTime ?? DEFAULT_ANCHOR_TIME);
  }

  /**
   * The price of a symbol at an instant (epoch ms), unrounded: the mid of the quote.
   * @throws {AssetNotFoundError} for an unknown symbol; {RangeError} for a time outside 1970–2106.
   */
  midPriceAt(symbol: string, time: number): number {
    const state = this.#state(symbol);
    const level = walkLevel(state, stepOf(time));
    return state.listing.referencePrice * Math.exp(state.volatilityPerStep * (level - state.anchorLevel));
  }

  /** The price of a symbol at an instant, rounded to the asset's tick. */
  priceAt(symbol: string, time: number): number {
    const mid = this.midPriceAt(symbol, time);
    return roundToTick(mid, tickFor(this.#state(symbol).listing.asset, mid));
  }

  /** The quote at an instant: bid and ask a spread apart around the price, at least one tick apart. */
  quoteAt(symbol: string, time: number): Quote {
    const state = this.#state(symbol);
    const step = stepOf(time);
    const { asset, spreadBps } = state.listing;
    const mid = this.midPriceAt(symbol, time);
    const tick = tickFor(asset, mid);
    const halfSpread = Math.max((mid * spreadBps) / 20_000, tick.size / 2);
    const bidPrice = Math.max(roundToTick(mid - halfSpread, tick, "down"), tick.size);
    let askPrice = roundToTick(mid + halfSpread, tick, "up");
    if (askPrice <= bidPrice) askPrice = roundToTick(bidPrice + tick.size, tick);
    return {
      symbol: asset.symbol,
      timestamp: step * PRICE_STEP_MS,
      bidPrice,
      bidSize: this.#quoteSize(state, mid, randomUniform(state.key, step, QUOTE_STREAM)),
      askPrice,
      askSize: this.#quoteSize(state, mid, randomUniform(state.key, step, QUOTE_STREAM + 1)),
    };
  }

  /** The trade print of a step, if the tape has one there. */
  tradeAtStep(symbol: string, step: number): TradePrint | undefined {
    const state = this.#state(symbol);
    const chance = Math.min(1, state.listing.tradesPerMinute / 60);
    if (randomUniform(state.key, step, TRADE_STREAM) >= chance) return undefined;
    const time = step * PRICE_STEP_MS;
    const quote = this.quoteAt(symbol, time);
    const takerSide = randomUniform(state.key, step, TRADE_STREAM + 1) < 0.5 ? "buy" : "sell";
    return {
      symbol: quote.symbol,
      id: step,
      timestamp: time + Math.floor(randomUniform(state.key, step, TRADE_STREAM + 2) * PRICE_STEP_MS),
      price: takerSide === "buy" ? quote.askPrice : quote.bidPrice,
      size: this.#printSize(state, quote.bidPrice, randomUniform(state.key, step, TRADE_STREAM + 3)),
      takerSide,
    };
  }

  /**
   * The prints with `from <= timestamp < to`, oldest first. Walks the window one step at a time.
   * @throws {RangeError} for a window longer than seven days.
   */
  tradesBetween(symbol: string, from: number, to: number): TradePrint[] {
    if (to - from > MAX_TAPE_WINDOW_MS) throw new RangeError("trade window longer than seven days");
    const prints: TradePrint[] = [];
    for (let step = stepOf(from); step * PRICE_STEP_MS < to; step++) {
      const print = this.tradeAtStep(symbol, step);
      if (print && print.timestamp >= from && print.timestamp < to) prints.push(print);
    }
    return prints;
  }

  /** The last print at or before `time`, looking back at most `lookbackMs` (default one hour). */
  lastTradeAt(symbol: string, time: number, lookbackMs = 3_600_000): TradePrint | undefined {
    const first = stepOf(Math.max(0, time - lookbackMs));
    for (let step = stepOf(time); step >= first; step--) {
      const print = this.tradeAtStep(symbol, step);
      if (print && print.timestamp <= time) return print;
    }
    return undefined;
  }

  /** Displayed size: round lots of 100 shares (single shares above $1,000), or $2k–$50k of a coin. */
  #quoteSize(state: SymbolState, price: number, u: number): number {
    const { asset } = state.listing;
    if (asset.class === "crypto") return this.#coins(asset.min_trade_increment, (2_000 + u * 48_000) / price);
    return (price >= 1_000 ? 1 : 100) * (1 + Math.floor(u * 9));
  }

  /** Printed size: mostly odd lots and small round lots for equities, $50–$20k of a coin. */
  #printSize(state: SymbolState, price: number, u: number): number {
    const { asset } = state.listing;
    if (asset.class === "crypto") return this.#coins(asset.min_trade_increment, (50 + u * u * 19_950) / price);
    if (price >= 1_000) return 1;
    return u < 0.6 ? 1 + Math.floor((u / 0.6) * 99) : 100 * (1 + Math.floor(((u - 0.6) / 0.4) * 5));
  }

  #coins(increment: string | undefined, amount: number): number {
    return roundToTick(amount, tickOf(increment ?? "0.000000001"), "down");
  }

  #state(symbol: string): SymbolState {
    const cached = this.#states.get(symbol);
    if (cached) return cached;
    const listing = this.#universe.get(symbol);
    const known = this.#states.get(listing.asset.symbol);
    if (known) return known;
    const state: SymbolState = {
      listing,
      key: randomKey(this.#seed, listing.asset.symbol),
      volatilityPerStep: listing.annualVolatility / Math.sqrt(SECONDS_PER_YEAR),
      anchorLevel: 0,
      depth: -1,
      from: new Float64Array(LEVELS + 1),
      to: new Float64Array(LEVELS + 1),
      fromValue: new Float64Array(LEVELS + 1),
      toValue: new Float64Array(LEVELS + 1),
    };
    state.anchorLevel = walkLevel(state, this.#anchorStep);
    this.#states.set(listing.asset.symbol, state);
    return state;
  }
}

/** The step of an instant. @throws {RangeError} outside the grid (1970 to 2106). */
function stepOf(time: number): number {
  const step = Math.floor(time / PRICE_STEP_MS);
  if (!(step >= 0 && step < SPAN)) throw new RangeError(`time ${time} is outside the price grid (1970–2106)`);
  return step;
}

/** The bridge's value at a step (in units of one step's standard deviation), resuming the last descent. */
function walkLevel(state: SymbolState, step: number): number {
  let depth = state.depth;
  while (depth > 0 && (step < state.from[depth]! || step > state.to[depth]!)) depth--;
  if (depth < 0) {
    depth = 0;
    state.from[0] = 0;
    state.to[0] = SPAN;
    state.fromValue[0] = 0;
    state.toValue[0] = Math.sqrt(SPAN) * randomNormal(state.key, SPAN, BRIDGE_STREAM);
  }
  for (;;) {
    const [from, to] = [state.from[depth]!, state.to[depth]!];
    const [fromValue, toValue] = [state.fromValue[depth]!, state.toValue[depth]!];
    if (step === from || step === to) {
      state.depth = depth;
      return step === from ? fromValue : toValue;
    }
    const middle = (from + to) / 2;
    const middleValue =
      (fromValue + toValue) / 2 + MIDPOINT_STD[depth]! * randomNormal(state.key, middle, BRIDGE_STREAM);
    depth++;
    const lower = step < middle;
    state.from[depth] = lower ? from : middle;
    state.to[depth] = lower ? middle : to;
    state.fromValue[depth] = lower ? fromValue : middleValue;
    state.toValue[depth] = lower ? middleValue : toValue;
  }
}
