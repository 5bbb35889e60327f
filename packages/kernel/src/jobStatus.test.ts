import { describe, expect, it } from "vitest";
import { redactUrls, toJobStatus } from "./jobStatus.ts";

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
    expect(redactUrls("RPC https://mainnet.infura.io/v3/0123abcd answered HTTP 500")).toBe(
      "RPC https://mainnet.infura.io/… answered HTTP 500",
    );
    expect(redactUrls("fetch failed: http://user:pass@10.0.0.1:8545?key=s3cret")).toBe(
      "fetch failed: http://10.0.0.1:8545/…",
    );
    expect(redactUrls("wss://node.example/ws/KEY, and http://127.0.0.1:8545")).toBe(
      "wss://node.example/…, and http://127.0.0.1:8545",
    );
    expect(toJobStatus({ lastError: "eth_getLogs at https://rpc.example/abc failed" })).toEqual({
      lastError: "eth_getLogs at https://rpc.example/… failed",
    });
  });
});
