import { describe, expect, it } from "vitest";
import { InvalidScopeError, parseScope, requiredScope } from "./scopes.ts";

describe("requiredScope", () => {
  it.each([
    ["GET", "/v2/account"],
    ["GET", "/v2/account/configurations"],
    ["GET", "/v2/watchlists"],
    ["GET", "/v2/watchlists/:watchlist_id"],
    ["GET", "/v2/watchlists::by_name"],
    ["HEAD", "/v2/watchlists"],
    ["GET", "/v2/orders"],
  ])("%s %s needs no scope (read-only access)", (method, path) => {
    expect(requiredScope(method, path)).toBeUndefined();
  });

  it.each([
    ["PATCH", "/v2/account/configurations"],
    ["POST", "/v2/watchlists"],
    ["PUT", "/v2/watchlists/:watchlist_id"],
    ["POST", "/v2/watchlists/:watchlist_id"],
    ["DELETE", "/v2/watchlists/:watchlist_id"],
    ["DELETE", "/v2/watchlists/:watchlist_id/:symbol"],
    ["DELETE", "/v2/watchlists/:watchlist_id/:base/:quote"],
    // The by-name routes: Fastify's path of `/v2/watchlists:by_name` (a literal colon is written `::`).
    ["PUT", "/v2/watchlists::by_name"],
    ["POST", "/v2/watchlists::by_name"],
    ["delete", "/v2/watchlists:by_name"],
  ])("%s %s needs account:write", (method, path) => {
    expect(requiredScope(method, path)).toBe("account:write");
  });

  it.each([
    ["POST", "/v2/orders"],
    ["PATCH", "/v2/orders/:order_id"],
    ["DELETE", "/v2/positions"],
  ])("%s %s needs trading", (method, path) => {
    expect(requiredScope(method, path)).toBe("trading");
  });

  it("denies by default: a write no rule names needs the broadest scope", () => {
    expect(requiredScope("POST", "/v2/something-new")).toBe("account:write");
  });
});

describe("parseScope", () => {
  it("reads a space-delimited list in canonical order, duplicates dropped", () => {
    expect(parseScope("data  trading data")).toEqual(["trading", "data"]);
    expect(parseScope(undefined)).toEqual([]);
    expect(() => parseScope("trading admin")).toThrow(InvalidScopeError);
  });
});
