import { describe, expect, it } from "vitest";
import { byteaToHex, hexDigits, hexToBytea } from "./bytea.ts";

describe("bytea ↔ hex", () => {
  it("turns bytes into lower-case 0x hex and back", () => {
    expect(byteaToHex(Buffer.from([0xde, 0xad, 0x00, 0x0f]))).toBe("0xdead000f");
    expect(byteaToHex(new Uint8Array([1, 255]))).toBe("0x01ff");
    expect(byteaToHex(Buffer.alloc(0))).toBe("0x");
    expect(hexToBytea("0xDEAD000f")).toEqual(Buffer.from([0xde, 0xad, 0x00, 0x0f]));
    expect(byteaToHex(hexToBytea("0xabcdef0123456789"))).toBe("0xabcdef0123456789");
  });

  it("gives a hex string's digits without 0x, with or without it", () => {
    expect(hexDigits("0xbeef")).toBe("beef");
    expect(hexDigits("beef")).toBe("beef");
    expect(hexDigits("0x")).toBe("");
  });
});
