import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.ts";
import { developmentDefaults, warnOfDevelopmentDefaults } from "./developmentDefaults.ts";
import { loadConfig } from "./loadConfig.ts";

describe("developmentDefaults", () => {
  it("names each unsafe default in effect with what to set in production", () => {
    const found = developmentDefaults(loadConfig({ env: {} }));
    expect(found.map((d) => d.option)).toEqual([
      "DEVNET",
      "CROSSCHAIN_RELAYER_KEY",
      "CROSSCHAIN_DEPOSIT_ADDRESS_KEY",
      "CROSSCHAIN_SETTLEMENT_KEY",
      "DATABASE_URL",
      "SECRETS_KEYS",
    ]);
    for (const d of found) {
      expect(d.risk).toContain(d.option);
      expect(d.production).toContain(d.option === "CROSSCHAIN_RELAYER_KEY" ? "CROSSCHAIN_RELAYER" : d.option);
    }
  });

  it("is empty for a production configuration", () => {
    const production = {
      DEVNET: "false",
      DATABASE_URL: "postgres://app@db.internal:5432/platform",
      CROSSCHAIN_RELAYER_KEY: `0x${"11".repeat(32)}`,
      SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
    };
    expect(developmentDefaults(loadConfig({ env: production }))).toEqual([]);
  });

  it("warns of the devnet signer key only when crosschain runs on the devnet without a deposit-address key", () => {
    const keyWarning = (env: Record<string, string>) =>
      developmentDefaults(loadConfig({ env })).some((d) => d.option === "CROSSCHAIN_DEPOSIT_ADDRESS_KEY");
    expect(keyWarning({})).toBe(true);
    expect(keyWarning({ DEVNET: "false" })).toBe(false);
    expect(keyWarning({ SERVICES: "wearables" })).toBe(false);
    expect(keyWarning({ CROSSCHAIN_DEPOSIT_ADDRESS_KEY: `0x${"22".repeat(32)}` })).toBe(false);
  });

  it("warns of the devnet relayer key only when the crosschain relayer runs on the devnet without a key", () => {
    const keyWarning = (env: Record<string, string>) =>
      developmentDefaults(loadConfig({ env })).some((d) => d.option === "CROSSCHAIN_RELAYER_KEY");
    expect(keyWarning({})).toBe(true);
    expect(keyWarning({ DEVNET: "false" })).toBe(false);
    expect(keyWarning({ CROSSCHAIN_RELAYER: "false" })).toBe(false);
    expect(keyWarning({ SERVICES: "wearables" })).toBe(false);
    expect(keyWarning({ CROSSCHAIN_RELAYER_KEY: `0x${"11".repeat(32)}` })).toBe(false);
  });

  it("warns of the development secrets key, and on PostgreSQL that other instances do not share it", () => {
    const secrets = (env: Record<string, string>) =>
      developmentDefaults(loadConfig({ env })).find((d) => d.option === "SECRETS_KEYS");
    expect(secrets({})?.risk).toContain("DATA_DIR/secrets.key");
    expect(secrets({})?.risk).not.toContain("other instances");
    expect(secrets({ DATABASE_URL: "postgres://db/platform" })?.risk).toContain("not shared with other instances");
    expect(secrets({ SECRETS_KEYS: `k1:${Buffer.alloc(32).toString("base64")}` })).toBeUndefined();
  });
});

describe("warnOfDevelopmentDefaults", () => {
  it("logs one structured warn line per default in effect", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    warnOfDevelopmentDefaults(loadConfig({ env: { DEVNET: "false" } }), createLogger({ destination }));
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        level: 40,
        option: "DATABASE_URL",
        production: "DATABASE_URL=postgres://… (a PostgreSQL server)",
        msg: expect.stringMatching(/^development default in effect: DATABASE_URL is unset/),
      }),
      expect.objectContaining({
        level: 40,
        option: "SECRETS_KEYS",
        msg: expect.stringMatching(/^development default in effect: SECRETS_KEYS is unset/),
      }),
    ]);
  });
});
