/**
 * Market data objects as the anchor's REST API answers them (its client's StockBar, StockTrade, StockQuote,
 * CryptoTrade, CryptoQuote models): short keys, JSON numbers, `t` in RFC 3339. Stock trades and quotes carry
 * the listing's tape (`z`); crypto trades the taker side (`tks`).
 */
import type { ListedAsset } from "../market/assets.ts";
import { type BarValues, vwapOf } from "./barTimeframe.ts";

export type MarketClass = "stock" | "crypto";

/** A recorded trade (`brokerage.market_trades`), prices and sizes as numbers. */
export interface TradeRecord {
  /** bigint as a decimal string. */
  id: string;
  at: Date;
  price: number;
  size: number;
  taker_side: "B" | "S";
  exchange: string;
  conditions: string[];
}

/** A recorded best bid and offer (`brokerage.market_quotes`). */
export interface QuoteRecord {
  at: Date;
  bid_price: number;
  bid_size: number;
  ask_price: number;
  ask_size: number;
  exchange: string;
  conditions: string[];
}

/** A bar as the anchor answers it (`t` RFC 3339). */
export interface BarObject {
  t: string;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
  vw: number;
}
export type TradeObject = Record<string, unknown> & { t: string; p: number; s: number; i: number };
export type QuoteObject = Record<string, unknown> & { t: string; bp: number; ap: number };

/** The anchor's tape (`z`) of a listing exchange: A NYSE, B the other exchange-listed, C Nasdaq. */
export const tapeOf = (listing: ListedAsset): string =>
  listing.asset.exchange === "NYSE" ? "A" : listing.asset.exchange === "NASDAQ" ? "C" : "B";

/** A stored or merged bar as the anchor answers it. */
export const barObject = (bar: BarValues): BarObject => ({
  t: new Date(bar.t).toISOString(),
  o: bar.o,
  h: bar.h,
  l: bar.l,
  c: bar.c,
  v: bar.v,
  n: bar.n,
  vw: vwapOf(bar),
});

export const stockTrade = (row: TradeRecord, listing: ListedAsset): TradeObject => ({
  t: row.at.toISOString(),
  x: row.exchange,
  p: row.price,
  s: row.size,
  c: row.conditions,
  i: Number(row.id),
  z: tapeOf(listing),
});
export const cryptoTrade = (row: TradeRecord): TradeObject => ({
  t: row.at.toISOString(),
  p: row.price,
  s: row.size,
  i: Number(row.id),
  tks: row.taker_side,
});
export const stockQuote = (row: QuoteRecord, listing: ListedAsset): QuoteObject => ({
  t: row.at.toISOString(),
  ax: row.exchange,
  ap: row.ask_price,
  as: row.ask_size,
  bx: row.exchange,
  bp: row.bid_price,
  bs: row.bid_size,
  c: row.conditions,
  z: tapeOf(listing),
});
export const cryptoQuote = (row: QuoteRecord): QuoteObject => ({
  t: row.at.toISOString(),
  bp: row.bid_price,
  bs: row.bid_size,
  ap: row.ask_price,
  as: row.ask_size,
});
/** The trade object of the market class. */
export const tradeShape = (market: MarketClass) => (market === "stock" ? stockTrade : cryptoTrade);
/** The quote object of the market class. */
export const quoteShape = (market: MarketClass) => (market === "stock" ? stockQuote : cryptoQuote);

/** A crypto order book (`CryptoOrderbook`): price levels, best first. */
export interface OrderbookObject {
  t: string;
  b: { p: number; s: number }[];
  a: { p: number; s: number }[];
}

/** The top of the book a recorded quote is: one bid level and one ask level. */
export const topOfBook = (row: QuoteRecord): OrderbookObject => ({
  t: row.at.toISOString(),
  b: [{ p: row.bid_price, s: row.bid_size }],
  a: [{ p: row.ask_price, s: row.ask_size }],
});
