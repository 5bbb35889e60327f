import { describe, expect, it } from "vitest";
import { InvalidPageTokenError } from "./marketDataErrors.ts";
import { decodePageToken, encodePageToken } from "./marketDataPageToken.ts";

describe("page tokens", () => {
  it("round-trips a bar, a trade and a quote key, as base64 of the key", () => {
    const t = Date.parse("2026-11-25T15:04:00.123Z");
    const bar = encodePageToken("B", { symbol: "AAPL", t });
    expect(Buffer.from(bar, "base64").toString()).toBe("AAPL|B|2026-11-25T15:04:00.123Z");
    expect(decodePageToken("B", bar)).toEqual({ symbol: "AAPL", t });
    const trade = encodePageToken("T", { symbol: "BTC/USD", t, id: "1099511627777" });
    expect(decodePageToken("T", trade)).toEqual({ symbol: "BTC/USD", t, id: "1099511627777" });
    expect(decodePageToken("Q", encodePageToken("Q", { symbol: "MSFT", t }))).toEqual({ symbol: "MSFT", t });
  });

  const b64 = (text: string) => Buffer.from(text).toString("base64");
  it.each([
    ["not base64", "%%%"],
    ["empty", ""],
    ["another kind", encodePageToken("Q", { symbol: "AAPL", t: 0 })],
    ["missing parts", b64("AAPL|B")],
    ["extra parts", b64("AAPL|B|2026-11-25T15:04:00.000Z|1")],
    ["a bad time", b64("AAPL|B|2026-13-25T15:04:00.000Z")],
    ["a time in another form", b64("AAPL|B|2026-11-25T15:04:00Z")],
    ["a bad symbol", b64("AA PL|B|2026-11-25T15:04:00.000Z")],
    ["too long", "A".repeat(400)],
  ])("refuses %s", (_, token) => {
    expect(() => decodePageToken("B", token)).toThrow(InvalidPageTokenError);
  });

  it.each([
    ["no id", b64("AAPL|T|2026-11-25T15:04:00.000Z")],
    ["a non-numeric id", b64("AAPL|T|2026-11-25T15:04:00.000Z|x1")],
    ["an id past int8", b64("AAPL|T|2026-11-25T15:04:00.000Z|9223372036854775808")],
  ])("refuses a trade token with %s", (_, token) => {
    expect(() => decodePageToken("T", token)).toThrow(InvalidPageTokenError);
  });
});
