/**
 * End to end with Alpaca's official client, `@alpacahq/alpaca-trade-api` 4.0.2, unmodified, against the
 * brokerage's data host as `platform start` starts it (the market data recorder and the exchange writer
 * running), with a real OAuth access token (scope `data`):
 * - `StockDataStream` and `CryptoDataStream` with their `url` option and `{ keyId: "oauth", secret: token }`
 *   (Alpaca's OAuth data-stream authentication) receive the market's live trades, quotes and bars in
 *   MessagePack, the only encoding the client speaks;
 * - a second stream of the same user, through another application's token or a key pair, gets 406
 *   `connection limit exceeded`; once the first closes, the slot is free again;
 * - the client's REST market data calls (`marketData.StockApi`, `CryptoApi` with `basePath`) answer the same
 *   market: the latest trade the stream saw is in the history, bars roll up the trades.
 */
import { marketData, streaming } from "@alpacahq/alpaca-trade-api";
import { startTradingHost, type TradingHost } from "@platform/brokerage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlpacaUser, createAlpacaUser } from "./support/alpacaClients.ts";

let host: TradingHost;
let user: AlpacaUser;
let dataOrigin: string;
beforeAll(async () => {
  host = await startTradingHost();
  dataOrigin = host.urls.data as string;
  user = await createAlpacaUser(host);
}, 60_000);
afterAll(async () => {
  await host?.close();
});

/** Resolves once `done()` holds (checked every 25 ms); rejects after `timeoutMs`. */
async function until(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const wsOrigin = () => dataOrigin.replace(/^http/, "ws");

/** A stream of the client, connected and authenticated (or refused: then `error` says why). */
async function openStream<S extends streaming.MarketDataStream>(
  stream: S,
): Promise<{ stream: S; error: string | undefined }> {
  let error: string | undefined;
  stream.onError((message: string) => {
    error = message;
  });
  let authorized = false;
  stream.on("authorized", () => {
    authorized = true;
  });
  stream.connect();
  await until(() => authorized || error !== undefined, 10_000);
  return { stream, error };
}

describe("market data streams with the Alpaca client", () => {
  it("streams the market's trades, quotes and minute bars in MessagePack with an OAuth token", async () => {
    const { stream, error } = await openStream(
      new streaming.StockDataStream({
        credentials: { keyId: "oauth", secret: user.accessToken },
        url: `${wsOrigin()}/v2/iex`,
        reconnect: false,
      }),
    );
    expect(error).toBeUndefined();
    const trades: streaming.StreamTrade[] = [];
    const quotes: streaming.StreamQuote[] = [];
    const bars: streaming.StreamBar[] = [];
    stream.onTrade((t) => trades.push(t));
    stream.onQuote((q) => quotes.push(q));
    stream.onBar((b) => bars.push(b));
    stream.subscribeForTrades(["AAPL", "SPY"]);
    stream.subscribeForQuotes(["AAPL"]);
    stream.subscribeForBars(["AAPL"]);
    try {
      await until(() => trades.length >= 3 && quotes.length >= 3, 15_000);
      expect(new Set(trades.map((t) => t.symbol))).toEqual(new Set(["AAPL", "SPY"]));
      expect(new Set(quotes.map((q) => q.symbol))).toEqual(new Set(["AAPL"]));
      const trade = trades[0] as streaming.StreamTrade;
      expect(trade.timestamp).toBeInstanceOf(Date); // a msgpack timestamp, decoded by the client
      expect(trade.price).toBeGreaterThan(0);
      expect(trade.exchange).toBe("V");
      const quote = quotes[0] as streaming.StreamQuote;
      expect(quote.askPrice).toBeGreaterThan(quote.bidPrice);

      // A minute bar comes when the minute ends: at most a minute and a second away.
      await until(() => bars.length >= 1, 65_000);
      const bar = bars[0] as streaming.StreamBar;
      expect(bar.symbol).toBe("AAPL");
      expect(bar.high).toBeGreaterThanOrEqual(bar.low);
      expect(bar.timestamp.getUTCSeconds()).toBe(0);

      // REST over the same market: the stream's trade is in the history, the bar is stored.
      const stocks = new marketData.StockApi(
        new marketData.Configuration({ basePath: dataOrigin, accessToken: user.accessToken }),
      );
      const history = await stocks.stockTradeSingle({
        symbol: "AAPL",
        start: new Date(Date.now() - 120_000),
        limit: 10_000,
      });
      const streamed = trades.find((t) => t.symbol === "AAPL");
      expect(history.trades.map((t) => t.i)).toContain(streamed?.id);
      const stored = await stocks.stockBarSingle({
        symbol: "AAPL",
        timeframe: "1Min",
        start: new Date(bar.timestamp.getTime()),
        end: new Date(bar.timestamp.getTime()),
      });
      expect(stored.bars[0]).toMatchObject({ o: bar.open, h: bar.high, l: bar.low, c: bar.close, v: bar.volume });
      const latest = await stocks.stockLatestQuoteSingle({ symbol: "AAPL" });
      expect(latest.quote.ap).toBeGreaterThan(0);
      const snapshots = await stocks.stockSnapshots({ symbols: "AAPL,SPY" });
      expect(Object.keys(snapshots).sort()).toEqual(["AAPL", "SPY"]);
    } finally {
      stream.disconnect();
    }
  }, 90_000);

  it("streams crypto on the v1beta3 path, and the test feed's FAKEPACA", async () => {
    // One stream of a user at a time: the crypto stream, then the test feed, each closed before the next.
    // The previous test's stream is released by the server after its close: wait for that (CI on PostgreSQL
    // once connected before the release committed and got 406).
    await until(async () => !(await slotHeld(user.userId)), 5_000);
    const crypto = await openStream(
      new streaming.CryptoDataStream({
        credentials: { keyId: "oauth", secret: user.accessToken },
        url: `${wsOrigin()}/v1beta3/crypto/us`,
        reconnect: false,
      }),
    );
    expect(crypto.error).toBeUndefined();
    const cryptoQuotes: streaming.StreamQuote[] = [];
    crypto.stream.onQuote((q) => cryptoQuotes.push(q));
    crypto.stream.subscribeForQuotes(["BTC/USD"]);
    await until(() => cryptoQuotes.length >= 2, 15_000);
    expect(cryptoQuotes[0]?.symbol).toBe("BTC/USD");
    crypto.stream.disconnect();

    const cryptoRest = new marketData.CryptoApi(
      new marketData.Configuration({ basePath: dataOrigin, accessToken: user.accessToken }),
    );
    const latest = await cryptoRest.cryptoLatestQuotes({ loc: "us", symbols: "BTC/USD" });
    expect(latest.quotes["BTC/USD"]?.ap).toBeGreaterThan(0);

    await until(async () => !(await slotHeld(user.userId)), 5_000);
    const test = await openStream(
      new streaming.StockDataStream({
        credentials: { keyId: "oauth", secret: user.accessToken },
        url: `${wsOrigin()}/v2/test`,
        reconnect: false,
      }),
    );
    expect(test.error).toBeUndefined();
    const fake: streaming.StreamTrade[] = [];
    test.stream.onTrade((t) => fake.push(t));
    test.stream.subscribeForTrades(["FAKEPACA"]);
    await until(() => fake.length >= 1, 15_000);
    expect(fake[0]?.symbol).toBe("FAKEPACA");
    test.stream.disconnect();
  }, 60_000);

  it("refuses a second stream of the same user with 406, whichever application or key, until the first closes", async () => {
    await until(async () => !(await slotHeld(user.userId)), 5_000);
    const first = await openStream(
      new streaming.StockDataStream({
        credentials: { keyId: "oauth", secret: user.accessToken },
        url: `${wsOrigin()}/v2/iex`,
        reconnect: false,
      }),
    );
    expect(first.error).toBeUndefined();
    try {
      // The same user's key pair (another way in, as "another application" would be).
      const second = await openStream(
        new streaming.StockDataStream({
          credentials: { keyId: user.live.keyId, secret: user.live.secret },
          url: `${wsOrigin()}/v2/iex`,
          reconnect: false,
        }),
      );
      expect(second.error).toBe("connection limit exceeded");
      second.stream.disconnect();
    } finally {
      first.stream.disconnect();
    }
    await until(async () => !(await slotHeld(user.userId)), 5_000);
    const third = await openStream(
      new streaming.StockDataStream({
        credentials: { keyId: user.live.keyId, secret: user.live.secret },
        url: `${wsOrigin()}/v2/iex`,
        reconnect: false,
      }),
    );
    expect(third.error).toBeUndefined();
    third.stream.disconnect();
  }, 60_000);
});

/** Whether a data stream slot of the user is held (PostgreSQL backend: no REDIS_URL in these tests). */
async function slotHeld(userId: string): Promise<boolean> {
  const rows = await host.db.query(
    "SELECT 1 FROM brokerage.data_stream_slots WHERE user_id = $1 AND expires_at > now()",
    [userId],
  );
  return rows.length > 0;
}
