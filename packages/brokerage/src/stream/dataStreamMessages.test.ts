/**
 * The data streams' messages as pure functions: client messages parsed per feed, control messages with the
 * anchor's texts, the full-list subscription reply, handshake credentials, and frames of pre-encoded items that
 * decode to the same arrays as encoding the whole frame at once (JSON, and MessagePack with `t` a timestamp).
 */
import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import {
  controlFrame,
  dataStreamError,
  emptySubscriptions,
  encodeItem,
  frameOfItems,
  handshakeCredentials,
  parseDataClientMessage,
  subscriptionMessage,
} from "./dataStreamMessages.ts";

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe("parseDataClientMessage", () => {
  it("reads auth with a key pair or with key `oauth`, and marks unusable credentials", () => {
    expect(parseDataClientMessage(json({ action: "auth", key: "K", secret: "S" }), false, "json", "iex")).toEqual({
      kind: "auth",
      credentials: { kind: "key", keyId: "K", secret: "S" },
    });
    expect(parseDataClientMessage(json({ action: "auth", key: "oauth", secret: "T" }), true, "json", "iex")).toEqual({
      kind: "auth",
      credentials: { kind: "oauth", token: "T" },
    });
    expect(parseDataClientMessage(json({ action: "auth", key: 1 }), false, "json", "iex")).toEqual({
      kind: "auth",
      credentials: undefined,
    });
  });

  it("reads subscribe in MessagePack, dropping duplicates", () => {
    const message = Buffer.from(encode({ action: "subscribe", trades: ["AAPL", "AAPL", "*"], bars: [] }));
    expect(parseDataClientMessage(message, true, "msgpack", "sip")).toEqual({
      kind: "subscribe",
      channels: { trades: ["AAPL", "*"], bars: [] },
    });
  });

  it("answers 400 for bad syntax and malformed symbols, 410 for channels the feed lacks", () => {
    const parse = (value: unknown, feed: "iex" | "crypto" = "iex") =>
      parseDataClientMessage(typeof value === "string" ? Buffer.from(value) : json(value), false, "json", feed);
    expect(parse("{")).toEqual({ kind: "invalid", code: 400 });
    expect(parse([1])).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "listen" })).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "subscribe", trades: ["aapl"] })).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "subscribe", trades: [1] })).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "subscribe", trades: ["BTC/USD"] })).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "subscribe", trades: ["BTCUSD"] }, "crypto")).toEqual({ kind: "invalid", code: 400 });
    expect(parse({ action: "subscribe", statuses: ["BTC/USD"] }, "crypto")).toEqual({ kind: "invalid", code: 410 });
    expect(parse({ action: "unsubscribe", orderbooks: ["AAPL"] })).toEqual({ kind: "invalid", code: 410 });
    expect(parse({ action: "subscribe", trades: ["BRK.B"], other: 1 })).toEqual({
      kind: "subscribe",
      channels: { trades: ["BRK.B"] },
    });
  });
});

describe("control messages", () => {
  it("carry the anchor's texts", () => {
    expect(
      [400, 401, 402, 403, 404, 405, 406, 407, 409, 410, 411].map(
        (c) => (dataStreamError(c as 400) as { msg: string }).msg,
      ),
    ).toEqual([
      "invalid syntax",
      "not authenticated",
      "auth failed",
      "already authenticated",
      "auth timeout",
      "symbol limit exceeded",
      "connection limit exceeded",
      "slow client",
      "insufficient subscription",
      "invalid subscribe action for this feed",
      "insufficient scope",
    ]);
  });

  it("list every channel of the feed in the subscription reply, `*` first", () => {
    const crypto = emptySubscriptions("crypto");
    crypto.get("trades")?.add("ETH/USD").add("*");
    expect(subscriptionMessage("crypto", crypto)).toEqual({
      T: "subscription",
      trades: ["*", "ETH/USD"],
      quotes: [],
      bars: [],
      updatedBars: [],
      dailyBars: [],
      orderbooks: [],
    });
    expect(Object.keys(subscriptionMessage("test", emptySubscriptions("test")))).toEqual([
      "T",
      "trades",
      "quotes",
      "bars",
      "updatedBars",
      "dailyBars",
      "statuses",
      "lulds",
      "corrections",
      "cancelErrors",
    ]);
  });
});

describe("handshakeCredentials", () => {
  it("reads a bearer token or a key pair, and refuses half or mixed credentials", () => {
    expect(handshakeCredentials({})).toBeUndefined();
    expect(handshakeCredentials({ authorization: "Bearer abc.DEF_1" })).toEqual({ kind: "oauth", token: "abc.DEF_1" });
    expect(handshakeCredentials({ "apca-api-key-id": "K", "apca-api-secret-key": "S" })).toEqual({
      kind: "key",
      keyId: "K",
      secret: "S",
    });
    expect(handshakeCredentials({ authorization: "Basic xyz" })).toBe("invalid");
    expect(handshakeCredentials({ "apca-api-key-id": "K" })).toBe("invalid");
    expect(handshakeCredentials({ authorization: "Bearer t", "apca-api-key-id": "K" })).toBe("invalid");
  });
});

describe("frames", () => {
  const messages = Array.from({ length: 20 }, (_, i) => ({
    T: "t",
    S: "AAPL",
    i,
    p: 1.5,
    t: "2026-11-25T15:00:00.123Z",
  }));

  it("JSON: an array of the items", () => {
    const frame = frameOfItems(
      messages.map((m) => encodeItem(m, "json")),
      "json",
    );
    expect(JSON.parse(frame.toString())).toEqual(messages);
    expect(frameOfItems([], "json").toString()).toBe("[]");
  });

  it("MessagePack: an array of the items (array 16 past 15), `t` a timestamp", () => {
    const frame = frameOfItems(
      messages.map((m) => encodeItem(m, "msgpack")),
      "msgpack",
    );
    expect(frame[0]).toBe(0xdc);
    expect(decode(frame)).toEqual(messages.map((m) => ({ ...m, t: new Date(m.t) })));
    const many = Array.from({ length: 70_000 }, () => encodeItem({ T: "x" }, "msgpack"));
    expect((decode(frameOfItems(many, "msgpack")) as unknown[]).length).toBe(70_000);
    expect(decode(controlFrame(dataStreamError(406), "msgpack"))).toEqual([
      { T: "error", code: 406, msg: "connection limit exceeded" },
    ]);
  });
});
