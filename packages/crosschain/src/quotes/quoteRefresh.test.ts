/**
 * The quote refresh is started by the HTTP server (an api instance answers quotes from the chain-state cache
 * and runs no jobs) and by the jobs (the relayer's fill costs): on an `all` instance both, and it runs once,
 * until the last of them stops.
 */
import { describe, expect, it, vi } from "vitest";
import { type QuoteContext, startQuoteRefresh } from "./quoteContext.ts";

function fakeQuotes() {
  const calls: string[] = [];
  const quotes = {
    cache: { start: vi.fn(() => calls.push("cache.start")), stop: vi.fn(async () => void calls.push("cache.stop")) },
    observedFillTimes: {
      start: vi.fn(() => calls.push("fillTimes.start")),
      stop: vi.fn(() => calls.push("fillTimes.stop")),
    },
  } as unknown as QuoteContext;
  return { quotes, calls };
}

describe("startQuoteRefresh", () => {
  it("runs once for the server and the jobs together, until the last of them stops", async () => {
    const { quotes, calls } = fakeQuotes();
    const server = startQuoteRefresh(quotes);
    const jobs = startQuoteRefresh(quotes);
    expect(calls).toEqual(["cache.start", "fillTimes.start"]);
    await jobs.stop();
    await jobs.stop(); // a second stop of the same holder changes nothing
    expect(calls).toEqual(["cache.start", "fillTimes.start"]);
    await server.stop();
    expect(calls).toEqual(["cache.start", "fillTimes.start", "fillTimes.stop", "cache.stop"]);
    // Started again afterwards (a server created again): it runs again.
    const again = startQuoteRefresh(quotes);
    expect(calls.at(-2)).toBe("cache.start");
    await again.stop();
  });
});
