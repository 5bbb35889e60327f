import { describe, expect, it } from "vitest";
import {
  cursorPage,
  decodeCursor,
  decodeEventCursor,
  decodeSampleCursor,
  encodeCursor,
  encodeEventCursor,
  encodeSampleCursor,
  InvalidCursorError,
} from "./cursors.ts";

const ID = "7b0c2f64-3c1e-4f0a-9d55-2f1b6a0c9e11";
const AT = "2026-05-01T08:00:00.123456Z";

describe("cursors", () => {
  it("are base64url of the fields, prev_ for backward", () => {
    const c = encodeEventCursor(AT, ID);
    expect(Buffer.from(c, "base64url").toString()).toBe(`${AT}|${ID}`);
    expect(decodeEventCursor(c)).toEqual({ at: AT, id: ID, direction: "next" });
    expect(decodeEventCursor(encodeEventCursor(AT, ID, "prev"))).toEqual({ at: AT, id: ID, direction: "prev" });
    expect(decodeSampleCursor(encodeSampleCursor(AT, 12, 80, "prev"))).toEqual({
      at: AT,
      sourceKey: 12,
      seriesType: 80,
      direction: "prev",
    });
  });

  it("accepts the anchor's padded base64", () => {
    const padded = Buffer.from(`${AT}|${ID}`).toString("base64").replace(/\+/g, "-").replace(/\//g, "_");
    expect(decodeEventCursor(padded).id).toBe(ID);
  });

  it("refuses anything else with the anchor's message", () => {
    const bad = [
      "",
      "abc",
      "a b",
      "prev_",
      encodeCursor([AT]),
      encodeCursor([AT, "not-a-uuid"]),
      encodeCursor(["yesterday", ID]),
      encodeCursor(["1777624200", ID]),
      encodeCursor([AT, ID, "extra"]),
    ];
    for (const c of bad) expect(() => decodeEventCursor(c), c).toThrow(InvalidCursorError);
    for (const c of [encodeCursor([AT, "1"]), encodeCursor([AT, "x", "1"]), encodeCursor([AT, "1", "99999"])]) {
      expect(() => decodeSampleCursor(c), c).toThrow(InvalidCursorError);
    }
    expect(() => decodeCursor("%%", 2)).toThrow("Invalid cursor format: '%%'. Expected 'timestamp|id'.");
  });
});

describe("cursorPage", () => {
  const cursorOf = (n: number, d: string) => `${d}:${n}`;

  it("first page: next cursor only when more", () => {
    expect(cursorPage([1, 2, 3], 2, null, cursorOf)).toEqual({
      data: [1, 2],
      next_cursor: "next:2",
      previous_cursor: null,
      has_more: true,
    });
    expect(cursorPage([1, 2], 2, null, cursorOf)).toMatchObject({ next_cursor: null, has_more: false });
    expect(cursorPage([], 2, null, cursorOf)).toEqual({
      data: [],
      next_cursor: null,
      previous_cursor: null,
      has_more: false,
    });
  });

  it("after a cursor: a way back to the first row", () => {
    expect(cursorPage([3, 4], 2, "next", cursorOf)).toEqual({
      data: [3, 4],
      next_cursor: null,
      previous_cursor: "prev:3",
      has_more: false,
    });
  });

  it("backward: rows put back in order, a way forward, a way further back when more", () => {
    expect(cursorPage([4, 3, 2], 2, "prev", cursorOf)).toEqual({
      data: [3, 4],
      next_cursor: "next:4",
      previous_cursor: "prev:3",
      has_more: true,
    });
    expect(cursorPage([2, 1], 2, "prev", cursorOf)).toMatchObject({ data: [1, 2], previous_cursor: null });
  });
});
