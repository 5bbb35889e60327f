/**
 * The market feed hub against a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): it starts at
 * the current end of the feed, hands each receiver one frame per read with exactly the messages of its
 * channels and symbols (`*` included, once), builds a frame once for receivers that want the same, stops at
 * a hole in the seqs until it fills or has waited long enough, and forgets removed receivers.
 */
import { decode } from "@msgpack/msgpack";
import { createLogger } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { writeFeed } from "../testing/dataStreamHost.ts";
import type { FrameEncoding } from "./dataStreamMessages.ts";
import { createMarketFeedHub, type FeedReceiver, type FeedTape, type MarketFeedHub } from "./marketFeedHub.ts";

let database: TestDatabase;
let hub: MarketFeedHub;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  await writeFeed(database.db, [{ channel: "trades", message: { T: "t", S: "OLD", i: 0 } }]);
  hub = createMarketFeedHub({ db: database.db, logger, pollIntervalMs: 60_000, gapWaitMs: 300 });
  await hub.latestSeq();
});
afterAll(async () => {
  await hub.close();
  await database.drop();
});

interface Recorder extends FeedReceiver {
  frames: Buffer[];
  messages(): Record<string, unknown>[];
}
function recorder(encoding: FrameEncoding = "json", tape: FeedTape = "stocks"): Recorder {
  const frames: Buffer[] = [];
  return {
    encoding,
    tape,
    frames,
    deliver: (frame) => frames.push(frame),
    messages: () =>
      frames.flatMap((f) => (encoding === "json" ? JSON.parse(f.toString()) : decode(f)) as Record<string, unknown>[]),
  };
}
const trade = (S: string, i: number) => ({ channel: "trades", message: { T: "t", S, i, t: "2026-11-25T15:00:00Z" } });

describe(`market feed hub (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("delivers what each receiver subscribed to, one frame per read, from the end of the feed on", async () => {
    const aapl = recorder();
    const all = recorder();
    const packed = recorder("msgpack");
    const same = recorder("msgpack");
    hub.subscribe(aapl, "trades", ["AAPL"]);
    hub.subscribe(all, "trades", ["*", "AAPL"]);
    hub.subscribe(all, "quotes", ["AAPL"]);
    hub.subscribe(packed, "trades", ["AAPL", "MSFT"]);
    hub.subscribe(same, "trades", ["MSFT", "AAPL"]);
    await writeFeed(database.db, [
      trade("AAPL", 1),
      trade("MSFT", 2),
      { channel: "quotes", message: { T: "q", S: "AAPL", bp: 1 } },
      { channel: "bars", message: { T: "b", S: "AAPL", o: 1 } },
    ]);
    await expect.poll(() => aapl.frames.length).toBe(1);
    await expect.poll(() => same.frames.length).toBe(1);
    expect(aapl.messages().map((m) => m.i)).toEqual([1]);
    expect(all.frames).toHaveLength(1);
    expect(all.messages().map((m) => m.T)).toEqual(["t", "t", "q"]);
    expect(packed.messages()).toEqual([
      { T: "t", S: "AAPL", i: 1, t: new Date("2026-11-25T15:00:00Z") },
      { T: "t", S: "MSFT", i: 2, t: new Date("2026-11-25T15:00:00Z") },
    ]);
    // Same subscriptions, same encoding: the very same frame.
    expect(same.frames[0]).toBe(packed.frames[0]);
    for (const r of [aapl, all, packed, same]) hub.remove(r);
  });

  it("keeps the tapes apart: `*` on stocks gets neither crypto nor the test feed", async () => {
    const stocks = recorder();
    const crypto = recorder("json", "crypto");
    const test = recorder("json", "test");
    for (const r of [stocks, crypto, test]) hub.subscribe(r, "trades", ["*"]);
    await writeFeed(database.db, [trade("BTC/USD", 1), trade("FAKEPACA", 2), trade("SPY", 3)]);
    await expect.poll(() => stocks.frames.length + crypto.frames.length + test.frames.length).toBe(3);
    expect([stocks, crypto, test].map((r) => r.messages().map((m) => m.S))).toEqual([
      ["SPY"],
      ["BTC/USD"],
      ["FAKEPACA"],
    ]);
    for (const r of [stocks, crypto, test]) hub.remove(r);
  });

  it("stops delivering after unsubscribe and remove", async () => {
    const r = recorder();
    hub.subscribe(r, "trades", ["AAPL", "MSFT"]);
    hub.unsubscribe(r, "trades", ["AAPL"]);
    await writeFeed(database.db, [trade("AAPL", 3), trade("MSFT", 4)]);
    await expect.poll(() => r.messages().map((m) => m.i)).toEqual([4]);
    hub.remove(r);
    await writeFeed(database.db, [trade("MSFT", 5)]);
    hub.wake();
    await hub.latestSeq();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.messages().map((m) => m.i)).toEqual([4]);
  });

  it("waits at a hole in the seqs for the missing row, then passes over it if it never commits", async () => {
    const r = recorder();
    hub.subscribe(r, "trades", ["GAP"]);
    const [row] = await database.db.query<{ seq: string }>("SELECT max(seq) AS seq FROM brokerage.market_feed");
    const base = BigInt(row?.seq ?? 0);
    const insert = (seq: bigint, i: number) =>
      database.db.query(
        "INSERT INTO brokerage.market_feed (seq, symbol, channel, message) VALUES ($1, 'GAP', 'trades', $2)",
        [seq.toString(), JSON.stringify({ T: "t", S: "GAP", i })],
      );
    // seq base+2 commits before base+1: the hub waits for base+1 and delivers both in order.
    await insert(base + 2n, 2);
    hub.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.frames).toHaveLength(0);
    await insert(base + 1n, 1);
    hub.wake();
    await expect.poll(() => r.messages().map((m) => m.i)).toEqual([1, 2]);
    // base+3 never commits (a rolled-back writer): base+4 comes after the wait.
    await insert(base + 4n, 4);
    hub.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.messages().map((m) => m.i)).toEqual([1, 2]);
    await expect.poll(() => r.messages().map((m) => m.i), { timeout: 2_000 }).toEqual([1, 2, 4]);
    await database.db.query("SELECT setval('brokerage.market_feed_seq_seq', $1)", [(base + 4n).toString()]);
    hub.remove(r);
  });
});
