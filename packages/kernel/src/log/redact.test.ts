import { describe, expect, it } from "vitest";
import { redactSecretsDeep, redactSecretsInText, redactUrl } from "./redact.ts";

describe("redactUrl", () => {
  it("keeps the origin only, marking a cut path or query", () => {
    expect(redactUrl("https://mainnet.infura.io/v3/0123abcd")).toBe("https://mainnet.infura.io/…");
    expect(redactUrl("https://eth.example/rpc?apikey=s3cret")).toBe("https://eth.example/…");
    expect(redactUrl("http://user:pass@10.0.0.1:8545")).toBe("http://10.0.0.1:8545");
    expect(redactUrl("http://127.0.0.1:8545/")).toBe("http://127.0.0.1:8545");
    expect(redactUrl("postgres://app:pw@db.internal:5432/prod")).toBe("postgres://db.internal:5432/…");
    expect(redactUrl("not a url")).toBe("[url]");
  });
});

describe("redactSecretsInText", () => {
  it("cuts every absolute URL in a text to its origin, so RPC keys never show", () => {
    expect(redactSecretsInText("RPC https://mainnet.infura.io/v3/0123abcd answered HTTP 500")).toBe(
      "RPC https://mainnet.infura.io/… answered HTTP 500",
    );
    expect(redactSecretsInText("fetch failed: http://user:pass@10.0.0.1:8545?key=s3cret")).toBe(
      "fetch failed: http://10.0.0.1:8545/…",
    );
    expect(redactSecretsInText("wss://node.example/ws/KEY, and http://127.0.0.1:8545")).toBe(
      "wss://node.example/…, and http://127.0.0.1:8545",
    );
    expect(redactSecretsInText('URL: https://eth.example/v3/KEY\nRequest body: {"url":"https://a.b/KEY2"}')).toBe(
      'URL: https://eth.example/…\nRequest body: {"url":"https://a.b/…"}',
    );
  });

  it("masks credential query parameters of a request target and keeps its path", () => {
    expect(redactSecretsInText("/x?apikey=SECRET1&chainid=1")).toBe("/x?apikey=[REDACTED]&chainid=1");
    expect(redactSecretsInText("/cb?code=abc&state=1&access_token=t")).toBe(
      "/cb?code=[REDACTED]&state=1&access_token=[REDACTED]",
    );
    expect(redactSecretsInText("/api/v1/users?limit=10")).toBe("/api/v1/users?limit=10");
  });
});

describe("redactSecretsDeep", () => {
  it("redacts every string of nested objects and arrays, and keeps the other values", () => {
    const date = new Date(0);
    expect(
      redactSecretsDeep({ a: "https://x.io/KEY", b: [1, { c: "see https://y.io/v2/KEY" }], d: null, e: date }),
    ).toEqual({ a: "https://x.io/…", b: [1, { c: "see https://y.io/…" }], d: null, e: date });
  });

  it("ends cycles", () => {
    const a: Record<string, unknown> = { s: "https://x.io/KEY" };
    a.self = a;
    expect(JSON.stringify(redactSecretsDeep(a))).not.toContain("KEY");
  });
});
