import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import type { TradeEventRow } from "../store/tradeEventFeedRepository.ts";
import {
  authorizationMessage,
  encodeFrame,
  errorMessage,
  listeningMessage,
  MAX_CLIENT_MESSAGE_BYTES,
  parseClientMessage,
  tradeUpdateMessage,
} from "./tradeUpdateMessages.ts";

const ORDER = { id: "61e69015-8549-4bfd-b9c3-01e75843f47d", symbol: "AAPL", status: "partially_filled", qty: "10" };

const row = (overrides: Partial<TradeEventRow> = {}): TradeEventRow => ({
  id: "42",
  account_id: "0b4e5d8e-59d4-4b39-9ea5-c3a1d4bbf0a3",
  event: "partial_fill",
  at: new Date("2026-03-02T15:04:05.123Z"),
  order_id: ORDER.id,
  order: ORDER,
  execution_id: "f0e6b7a2-7c9c-4a3e-9d59-5f1a2b3c4d5e",
  price: "179.250000000",
  qty: "2.500000000",
  position_qty: "-7.000000000",
  ...overrides,
});

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe("tradeUpdateMessage", () => {
  it("gives a fill the anchor's fields, numbers as decimal strings without trailing zeros", () => {
    expect(tradeUpdateMessage(row())).toEqual({
      stream: "trade_updates",
      data: {
        event: "partial_fill",
        execution_id: "f0e6b7a2-7c9c-4a3e-9d59-5f1a2b3c4d5e",
        order: ORDER,
        timestamp: "2026-03-02T15:04:05.123Z",
        at: "2026-03-02T15:04:05.123Z",
        event_id: "42",
        price: "179.25",
        qty: "2.5",
        position_qty: "-7",
      },
    });
  });

  it("leaves the fill fields out of other events", () => {
    const message = tradeUpdateMessage(
      row({ event: "canceled", execution_id: null, price: null, qty: null, position_qty: null }),
    );
    expect(Object.keys(message.data)).toEqual(["event", "order", "timestamp", "at", "event_id"]);
    expect(tradeUpdateMessage(row({ position_qty: "0.000000000" })).data.position_qty).toBe("0");
  });
});

describe("control messages", () => {
  it("are the anchor's", () => {
    expect(authorizationMessage("authorized", "authenticate")).toEqual({
      stream: "authorization",
      data: { status: "authorized", action: "authenticate" },
    });
    expect(authorizationMessage("unauthorized", "listen")).toEqual({
      stream: "authorization",
      data: { status: "unauthorized", action: "listen" },
    });
    expect(listeningMessage(["trade_updates"])).toEqual({ stream: "listening", data: { streams: ["trade_updates"] } });
    expect(errorMessage("invalid syntax")).toEqual({ action: "error", data: { error_message: "invalid syntax" } });
  });

  it("encode as JSON or MessagePack bytes", () => {
    const message = listeningMessage([]);
    expect(JSON.parse(encodeFrame(message, "json").toString())).toEqual(message);
    expect(decode(encodeFrame(message, "msgpack"))).toEqual(message);
  });
});

describe("parseClientMessage", () => {
  it("reads the three forms of authentication", () => {
    expect(parseClientMessage(json({ action: "authenticate", data: { oauth_token: "tok" } }), false, "json")).toEqual({
      kind: "authenticate",
      credentials: { kind: "oauth", token: "tok" },
    });
    expect(
      parseClientMessage(json({ action: "authenticate", data: { key_id: "PK1", secret_key: "s" } }), true, "json"),
    ).toEqual({ kind: "authenticate", credentials: { kind: "key", keyId: "PK1", secret: "s" } });
    expect(parseClientMessage(json({ action: "auth", key: "PK1", secret: "s" }), false, "json")).toEqual({
      kind: "authenticate",
      credentials: { kind: "key", keyId: "PK1", secret: "s" },
    });
    expect(parseClientMessage(json({ action: "auth", key: "oauth", secret: "tok" }), false, "json")).toEqual({
      kind: "authenticate",
      credentials: { kind: "oauth", token: "tok" },
    });
  });

  it("has no credentials for an authenticate without usable ones", () => {
    for (const message of [
      { action: "authenticate" },
      { action: "authenticate", data: { key_id: "PK1" } },
      { action: "authenticate", data: { oauth_token: 5 } },
      { action: "authenticate", data: { oauth_token: "x".repeat(513) } },
      { action: "auth", key: "", secret: "s" },
    ]) {
      expect(parseClientMessage(json(message), false, "json")).toEqual({
        kind: "authenticate",
        credentials: undefined,
      });
    }
  });

  it("keeps only the streams the server offers, once each", () => {
    const listen = (streams: unknown) =>
      parseClientMessage(json({ action: "listen", data: { streams } }), false, "json");
    expect(listen(["trade_updates"])).toEqual({ kind: "listen", streams: ["trade_updates"] });
    expect(listen(["account_updates", "trade_updates", "trade_updates"])).toEqual({
      kind: "listen",
      streams: ["trade_updates"],
    });
    expect(listen([])).toEqual({ kind: "listen", streams: [] });
    expect(listen("trade_updates")).toEqual({ kind: "invalid", error: "invalid syntax" });
  });

  it("decodes MessagePack binary frames only in MessagePack mode, JSON text frames in both", () => {
    const message = { action: "listen", data: { streams: ["trade_updates"] } };
    const packed = Buffer.from(encode(message));
    expect(parseClientMessage(packed, true, "msgpack")).toEqual({ kind: "listen", streams: ["trade_updates"] });
    expect(parseClientMessage(json(message), false, "msgpack")).toEqual({ kind: "listen", streams: ["trade_updates"] });
    expect(parseClientMessage(packed, true, "json")).toEqual({ kind: "invalid", error: "invalid syntax" });
  });

  it("refuses what is not a message: bad syntax, no action, unknown action, too large", () => {
    expect(parseClientMessage(Buffer.from("{not json"), false, "json")).toEqual({
      kind: "invalid",
      error: "invalid syntax",
    });
    expect(parseClientMessage(json([1, 2]), false, "json")).toEqual({ kind: "invalid", error: "invalid syntax" });
    expect(parseClientMessage(json({ data: {} }), false, "json")).toEqual({ kind: "invalid", error: "invalid syntax" });
    expect(parseClientMessage(Buffer.from([0xc1]), true, "msgpack")).toEqual({
      kind: "invalid",
      error: "invalid syntax",
    });
    expect(parseClientMessage(json({ action: "subscribe" }), false, "json")).toEqual({
      kind: "invalid",
      error: "unrecognized action: subscribe",
    });
    const large = json({ action: "listen", data: { streams: ["x".repeat(MAX_CLIENT_MESSAGE_BYTES)] } });
    expect(parseClientMessage(large, false, "json")).toEqual({ kind: "invalid", error: "message too large" });
  });
});
