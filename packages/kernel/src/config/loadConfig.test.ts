import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeConfig, loadConfig } from "./loadConfig.ts";

describe("loadConfig", () => {
  it("gives every default when nothing is set", () => {
    const config = loadConfig({ env: {} });
    expect(config.wearablesPort).toBe(8000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.services).toEqual(["wearables", "crosschain", "brokerage", "chainstats"]);
    expect(config.chainRpcUrls).toEqual({});
  });

  it("parses environment variables", () => {
    const config = loadConfig({ env: { WEARABLES_PORT: "9001", DEVNET: "false", LOG_LEVEL: "warn" } });
    expect(config).toMatchObject({ wearablesPort: 9001, devnet: false, logLevel: "warn" });
  });

  it("parses chain RPC URLs", () => {
    const config = loadConfig({ env: { CHAIN_RPC_URLS: "1=https://eth.example/rpc, 8453=http://base.example" } });
    expect(config.chainRpcUrls).toEqual({ 1: "https://eth.example/rpc", 8453: "http://base.example" });
    // The indexers speak JSON-RPC over HTTP only: a WebSocket URL is refused here rather than in every indexer.
    expect(() => loadConfig({ env: { CHAIN_RPC_URLS: "8453=wss://base.example" } })).toThrow(
      /CHAIN_RPC_URLS must be a URL with scheme/,
    );
    expect(() => loadConfig({ env: { CHAIN_RPC_URLS: "x=https://a" } })).toThrow(
      /CHAIN_RPC_URLS entry "x=https:\/\/a"/,
    );
    expect(() => loadConfig({ env: { CHAIN_RPC_URLS: "1=ftp://a" } })).toThrow(
      /CHAIN_RPC_URLS must be a URL with scheme/,
    );
  });

  it("names the bad option", () => {
    expect(() => loadConfig({ env: { WEARABLES_PORT: "abc" } })).toThrow(
      'Invalid configuration: environment variable WEARABLES_PORT must be an integer (got "abc")',
    );
    expect(() => loadConfig({ env: { WEARABLES_PORT: "70000" } })).toThrow(/between 0 and 65535/);
    expect(() => loadConfig({ env: { DATABASE_URL: "mysql://x" } })).toThrow(/DATABASE_URL must be a URL with scheme/);
    expect(() => loadConfig({ env: { LOG_LEVEL: "loud" } })).toThrow(/LOG_LEVEL must be one of/);
    expect(() => loadConfig({ env: { LOG_FORMAT: "xml" } })).toThrow(/LOG_FORMAT must be one of auto, pretty, json/);
    expect(() => loadConfig({ env: { LOG_REQUESTS: "sometimes" } })).toThrow(/LOG_REQUESTS must be true or false/);
  });

  it("reads a config file, and the environment wins over it", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const file = join(dir, "c.json");
    writeFileSync(file, JSON.stringify({ wearablesPort: 9100, host: "0.0.0.0" }));
    const config = loadConfig({ env: { HOST: "127.0.0.2" }, file });
    expect(config.wearablesPort).toBe(9100);
    expect(config.host).toBe("127.0.0.2");
  });

  it("rejects unknown options in the config file", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const file = join(dir, "c.json");
    writeFileSync(file, JSON.stringify({ wearablePort: 1 }));
    expect(() => loadConfig({ env: {}, file })).toThrow(/unknown option "wearablePort"/);
  });

  it("masks secrets when described", () => {
    const rows = describeConfig(loadConfig({ env: { DATABASE_URL: "postgres://u:pw@h/db" } }));
    expect(rows.find((r) => r.env === "DATABASE_URL")?.value).toBe("(set)");
  });
});
