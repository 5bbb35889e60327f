import { describe, expect, it } from "vitest";
import { readCookie, serializeCookie } from "./cookies.ts";

const value = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde";

describe("cookies", () => {
  it("reads a cookie among others, the first when repeated, and ignores malformed values", () => {
    expect(readCookie(`a=1; brokerage_session=${value}; b=2`, "brokerage_session")).toBe(value);
    expect(readCookie(`brokerage_session=${value}; brokerage_session=other-value-xxxxxxxx`, "brokerage_session")).toBe(
      value,
    );
    expect(readCookie("brokerage_session_x=abcdefabcdefabcdef", "brokerage_session")).toBeUndefined();
    expect(readCookie('brokerage_session="<script>"', "brokerage_session")).toBeUndefined();
    expect(readCookie(undefined, "brokerage_session")).toBeUndefined();
  });

  it("serializes HttpOnly, Path=/, SameSite and Secure when asked", () => {
    expect(serializeCookie("brokerage_session", value, { maxAgeSec: 3600, sameSite: "Lax", secure: false })).toBe(
      `brokerage_session=${value}; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax`,
    );
    expect(serializeCookie("brokerage_login_csrf", "", { maxAgeSec: 0, sameSite: "Strict", secure: true })).toBe(
      "brokerage_login_csrf=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
    );
  });
});
