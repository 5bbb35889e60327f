/**
 * A data host for the market data REST tests: the market data API (with the trading hosts' error format and
 * security schemes) on an ephemeral port over a test database, real credentials from the trading test bed
 * (tokens with chosen scopes, key pairs), a settable clock, and plain SQL writers of trades, quotes and bars
 * (the rows the recorder writes), so that tests choose exactly what is stored.
 */
import { closeGracefully, createHttpServer, createLogger, type HttpServer } from "@platform/kernel";
import { marketDataTags, registerMarketDataApi } from "../http/marketData/marketDataApi.ts";
import { formatError } from "../http/trading/errorFormat.ts";
import type { TradingRateLimit } from "../http/trading/rateLimit.ts";
import { alpacaRequestBodies } from "../http/trading/requestBodies.ts";
import { tradingSecurity, tradingSecuritySchemes } from "../http/trading/tradingAuth.ts";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createDataPrincipals } from "../services/dataPrincipals.ts";
import { createMarketDataService } from "../services/marketData.ts";
import { createMarketDataReadRepository } from "../store/marketDataReadRepository.ts";
import { createTradingTestBed, type TradingTestBed } from "./tradingTestHosts.ts";

export interface StoredTrade {
  symbol: string;
  id: number | bigint;
  at: Date;
  price: number;
  size: number;
  takerSide?: "B" | "S";
  exchange?: string;
  conditions?: string[];
}

export interface StoredQuote {
  symbol: string;
  at: Date;
  bid: number;
  bidSize: number;
  ask: number;
  askSize: number;
  exchange?: string;
}

export interface StoredBar {
  symbol: string;
  timeframe: "1Min" | "1Hour" | "1Day";
  t: Date;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
  /** Σ price × size; default vw × v with vw the bar's mid-range. */
  notional?: number;
}

export interface DataHost {
  bed: TradingTestBed;
  app: HttpServer;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The clock the service reads (settable). */
  setNow(at: Date): void;
  insertTrades(trades: StoredTrade[]): Promise<void>;
  insertQuotes(quotes: StoredQuote[]): Promise<void>;
  insertBars(bars: StoredBar[]): Promise<void>;
  close(): Promise<void>;
}

export async function startDataHost({ rateLimit }: { rateLimit?: TradingRateLimit } = {}): Promise<DataHost> {
  const bed = await createTradingTestBed();
  const { db } = bed.fixture.database;
  let now = new Date();
  const universe = createDefaultAssetUniverse();
  const marketData = createMarketDataService({
    reads: createMarketDataReadRepository(db),
    findListing: (symbol) => universe.find(symbol),
    now: () => now,
  });
  const app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    bodyLimit: 1_048_576,
    bodies: alpacaRequestBodies,
    formatError,
    openapi: {
      title: "Market data API test",
      version: "2",
      description: "The data host's market data routes.",
      tags: marketDataTags,
      securitySchemes: tradingSecuritySchemes,
      security: tradingSecurity,
    },
  });
  await registerMarketDataApi(app, {
    marketData,
    principals: createDataPrincipals({ tokens: bed.fixture.tokens, keyPairs: bed.keyPairs }),
    rateLimit,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  return {
    bed,
    app,
    origin,
    setNow: (at) => {
      now = at;
    },
    async insertTrades(trades) {
      for (const t of trades) {
        await db.query(
          `INSERT INTO brokerage.market_trades (symbol, id, at, price, size, taker_side, exchange, conditions)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            t.symbol,
            t.id.toString(),
            t.at,
            t.price,
            t.size,
            t.takerSide ?? "B",
            t.exchange ?? (t.symbol.includes("/") ? "CBSE" : "V"),
            t.conditions ?? ["@"],
          ],
        );
      }
    },
    async insertQuotes(quotes) {
      for (const q of quotes) {
        await db.query(
          `INSERT INTO brokerage.market_quotes (symbol, at, bid_price, bid_size, ask_price, ask_size, exchange, conditions)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [q.symbol, q.at, q.bid, q.bidSize, q.ask, q.askSize, q.exchange ?? "V", ["R"]],
        );
      }
    },
    async insertBars(bars) {
      // One statement per 1,000 bars: a year of minutes is inserted in seconds.
      for (let i = 0; i < bars.length; i += 1000) {
        const chunk = bars.slice(i, i + 1000);
        const values: unknown[] = [];
        const rows = chunk.map((b, j) => {
          const notional = b.notional ?? ((b.h + b.l) / 2) * b.v;
          values.push(b.symbol, b.timeframe, b.t, b.o, b.h, b.l, b.c, b.v, b.n, notional);
          const p = j * 10;
          return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, $${p + 7}, $${p + 8}, $${p + 9}, $${p + 10}, $${p + 3}, 1, $${p + 3}, 2)`;
        });
        await db.query(
          `INSERT INTO brokerage.market_bars (symbol, timeframe, t, open, high, low, close, volume, trade_count,
             notional, open_at, open_id, close_at, close_id) VALUES ${rows.join(", ")}`,
          values,
        );
      }
    },
    async close() {
      await closeGracefully(app, 1_000);
      await bed.close();
    },
  };
}
