/**
 * What the market data host records of the market, and how those records read on its streams (reference
 * §3.2): trades, quotes, and bars rolled up from trades. Pure: the recorder and the exchange's ledger build
 * records with these functions; `store/marketDataRepository.ts` writes them.
 *
 * Bars are kept in three stored timeframes. A bar carries the (time, id) of its first and last trade, so merging
 * partial bars (a batch's, or the stored one with a new batch's) gives the same bar in any order.
 */
import type { ListedAsset } from "../market/assets.ts";
import { newYorkInstant, newYorkWallTime } from "../market/newYorkTime.ts";
import type { Quote, TradePrint } from "../market/priceProcess.ts";
import type { BarValues } from "./barTimeframe.ts";
import { barObject } from "./marketDataObjects.ts";

export type StoredTimeframe = "1Min" | "1Hour" | "1Day";
export const STORED_TIMEFRAMES: readonly StoredTimeframe[] = ["1Min", "1Hour", "1Day"];

/** Our exchange's code on equities' trades and quotes: IEX's (`V`), the anchor's free feed. */
export const EQUITY_EXCHANGE = "V";
/** Stored for crypto records, whose stream and REST shapes carry no exchange. */
export const CRYPTO_EXCHANGE = "CBSE";
/** Exchange trades' ids: above every tape id (a tape id is a second since 1970, below 2^32). */
export const EXCHANGE_TRADE_ID_BASE = 2 ** 40;

export interface MarketTrade {
  symbol: string;
  /** The anchor's `i`: unique per symbol. */
  id: number;
  /** Epoch ms. */
  at: number;
  price: number;
  size: number;
  takerSide: "B" | "S";
  exchange: string;
  conditions: string[];
  /** The anchor's tape (`z`): A (NYSE), B (other exchanges), C (NASDAQ); undefined for crypto. */
  tape: string | undefined;
}

export interface MarketQuote {
  symbol: string;
  at: number;
  bidPrice: number;
  bidSize: number;
  askPrice: number;
  askSize: number;
  exchange: string;
  conditions: string[];
  tape: string | undefined;
}

/** A bar, or the part of one that some trades make. Volume and notional are exact (1e-9 and 1e-18 units). */
export interface PartialBar {
  symbol: string;
  timeframe: StoredTimeframe;
  /** Bucket start, epoch ms. */
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Σ size, 1e-9 units. */
  volumeNanos: bigint;
  tradeCount: number;
  /** Σ price × size, 1e-18 units. */
  notionalAtto: bigint;
  openAt: number;
  openId: number;
  closeAt: number;
  closeId: number;
}

const tapeOf = (listing: ListedAsset): string | undefined => {
  if (listing.asset.class === "crypto") return undefined;
  if (listing.asset.exchange === "NASDAQ") return "C";
  return listing.asset.exchange === "NYSE" ? "A" : "B";
};

/** A trade of `listing`: its exchange, conditions (equity odd lots under 100 carry `I`) and tape. */
function marketTrade(
  listing: ListedAsset,
  trade: { id: number; at: number; price: number; size: number; takerSide: "buy" | "sell" },
): MarketTrade {
  const crypto = listing.asset.class === "crypto";
  return {
    symbol: listing.asset.symbol,
    id: trade.id,
    at: trade.at,
    price: trade.price,
    size: trade.size,
    takerSide: trade.takerSide === "buy" ? "B" : "S",
    exchange: crypto ? CRYPTO_EXCHANGE : EQUITY_EXCHANGE,
    conditions: crypto ? [] : trade.size < 100 ? ["@", "I"] : ["@"],
    tape: tapeOf(listing),
  };
}

/** A print of the price process's tape as a recorded trade (id = its step). */
export const tradeOfPrint = (print: TradePrint, listing: ListedAsset): MarketTrade =>
  marketTrade(listing, { ...print, at: print.timestamp });

/**
 * An execution of our live books as a recorded trade (id above the tape's), or `undefined` when the tape
 * gets nothing. An exchange reports whole shares only (the consolidated tape, and Alpaca's clients, which
 * decode `s` and `v` as unsigned integers): an equity execution prints its whole shares, and one of less
 * than a share is not printed at all, as a broker fills fractional parts from its own inventory. Crypto
 * trades in fractions.
 */
export function tradeOfExecution(
  execution: { sequence: number; at: number; price: number; size: number; takerSide: "buy" | "sell" },
  listing: ListedAsset,
): MarketTrade | undefined {
  const size = listing.asset.class === "crypto" ? execution.size : Math.floor(execution.size);
  if (size <= 0) return undefined;
  return marketTrade(listing, { ...execution, size, id: EXCHANGE_TRADE_ID_BASE + execution.sequence });
}

/** The price process's best bid and offer as a recorded quote (condition `R`, regular, for equities). */
export function quoteOfProcess(quote: Quote, listing: ListedAsset): MarketQuote {
  const crypto = listing.asset.class === "crypto";
  return {
    symbol: listing.asset.symbol,
    at: quote.timestamp,
    bidPrice: quote.bidPrice,
    bidSize: quote.bidSize,
    askPrice: quote.askPrice,
    askSize: quote.askSize,
    exchange: crypto ? CRYPTO_EXCHANGE : EQUITY_EXCHANGE,
    conditions: crypto ? [] : ["R"],
    tape: tapeOf(listing),
  };
}

/** Start of the stored bucket holding `at`: the UTC minute or hour, or midnight New York time. */
export function bucketStart(timeframe: StoredTimeframe, at: number): number {
  if (timeframe === "1Min") return at - (((at % 60_000) + 60_000) % 60_000);
  if (timeframe === "1Hour") return at - (((at % 3_600_000) + 3_600_000) % 3_600_000);
  return newYorkInstant(newYorkWallTime(at).day, 0);
}

/** The first instant after the New York day holding `at`. */
export const nextNewYorkMidnight = (at: number): number => newYorkInstant(newYorkWallTime(at).day + 1, 0);

const nanos = (value: number): bigint => BigInt(Math.round(value * 1e9));
const before = (at: number, id: number, otherAt: number, otherId: number) =>
  at < otherAt || (at === otherAt && id < otherId);

/** Merges `b` into `a` (same symbol, timeframe and bucket); order does not matter. */
export function mergeBars(a: PartialBar, b: PartialBar): PartialBar {
  const openFromB = before(b.openAt, b.openId, a.openAt, a.openId);
  const closeFromB = before(a.closeAt, a.closeId, b.closeAt, b.closeId);
  return {
    ...a,
    open: openFromB ? b.open : a.open,
    openAt: openFromB ? b.openAt : a.openAt,
    openId: openFromB ? b.openId : a.openId,
    close: closeFromB ? b.close : a.close,
    closeAt: closeFromB ? b.closeAt : a.closeAt,
    closeId: closeFromB ? b.closeId : a.closeId,
    high: Math.max(a.high, b.high),
    low: Math.min(a.low, b.low),
    volumeNanos: a.volumeNanos + b.volumeNanos,
    tradeCount: a.tradeCount + b.tradeCount,
    notionalAtto: a.notionalAtto + b.notionalAtto,
  };
}

/** The bars (one per symbol, stored timeframe and bucket) that `trades` make. */
export function barsOfTrades(trades: readonly MarketTrade[]): PartialBar[] {
  const bars = new Map<string, PartialBar>();
  for (const trade of trades) {
    for (const timeframe of STORED_TIMEFRAMES) {
      const t = bucketStart(timeframe, trade.at);
      const size = nanos(trade.size);
      const bar: PartialBar = {
        symbol: trade.symbol,
        timeframe,
        t,
        open: trade.price,
        high: trade.price,
        low: trade.price,
        close: trade.price,
        volumeNanos: size,
        tradeCount: 1,
        notionalAtto: nanos(trade.price) * size,
        openAt: trade.at,
        openId: trade.id,
        closeAt: trade.at,
        closeId: trade.id,
      };
      const key = `${trade.symbol}|${timeframe}|${t}`;
      const known = bars.get(key);
      bars.set(key, known ? mergeBars(known, bar) : bar);
    }
  }
  return [...bars.values()];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A trade as the stream sends it (`T: "t"`); crypto trades carry the taker side and no exchange or tape. */
export function streamTradeMessage(trade: MarketTrade, crypto: boolean): Record<string, unknown> {
  if (crypto) {
    return {
      T: "t",
      S: trade.symbol,
      p: trade.price,
      s: trade.size,
      t: iso(trade.at),
      i: trade.id,
      tks: trade.takerSide,
    };
  }
  return {
    T: "t",
    S: trade.symbol,
    i: trade.id,
    x: trade.exchange,
    p: trade.price,
    s: trade.size,
    c: trade.conditions,
    z: trade.tape,
    t: iso(trade.at),
  };
}

/** A quote as the stream sends it (`T: "q"`). */
export function streamQuoteMessage(quote: MarketQuote, crypto: boolean): Record<string, unknown> {
  const prices = { bp: quote.bidPrice, bs: quote.bidSize, ap: quote.askPrice, as: quote.askSize };
  if (crypto) return { T: "q", S: quote.symbol, ...prices, t: iso(quote.at) };
  return {
    T: "q",
    S: quote.symbol,
    bx: quote.exchange,
    bp: quote.bidPrice,
    bs: quote.bidSize,
    ax: quote.exchange,
    ap: quote.askPrice,
    as: quote.askSize,
    c: quote.conditions,
    z: quote.tape,
    t: iso(quote.at),
  };
}

/** A stored bar of one symbol (the REST API's bar values, and which symbol). */
export type SymbolBar = BarValues & { symbol: string };

/**
 * A bar as the stream sends it: `b` (a minute just ended), `u` (an ended minute changed), `d` (the day so far);
 * its fields are the REST API's bar object (`barObject`), so both give the same `vw`.
 */
export function streamBarMessage(bar: SymbolBar, type: "b" | "u" | "d"): Record<string, unknown> {
  return { T: type, S: bar.symbol, ...barObject(bar) };
}
