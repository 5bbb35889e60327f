import { describe, expect, it } from "vitest";
import { toJobStatus } from "./jobStatus.ts";

describe("toJobStatus", () => {
  it("turns bigints into strings and keeps the shape", () => {
    expect(toJobStatus({ a: 1n, b: [2n, { c: 3n }], d: null, e: true, m: new Map([[10, 5n]]) })).toEqual({
      a: "1",
      b: ["2", { c: "3" }],
      d: null,
      e: true,
      m: { "10": "5" },
    });
  });

  it("cuts URLs in messages to their origin, so RPC keys never show", () => {
    expect(toJobStatus({ lastError: "eth_getLogs at https://rpc.example/abc failed" })).toEqual({
      lastError: "eth_getLogs at https://rpc.example/… failed",
    });
  });

  it("shows an error by its name and message, redacted", () => {
    const error = new TypeError("RPC https://eth.example/v3/SECRETKEY?apikey=SECRET2 did not answer");
    const status = toJobStatus({ chains: [{ chainId: 1, lastError: error }] });
    expect(status).toEqual({
      chains: [{ chainId: 1, lastError: { name: "TypeError", message: "RPC https://eth.example/… did not answer" } }],
    });
    expect(JSON.stringify(status)).not.toContain("SECRET");
  });
});
