import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/loadConfig.ts";
import { ConfigError } from "../config/parsers.ts";
import { createSecretBox } from "./secretBox.ts";
import {
  createConfiguredSecretBox,
  DEVELOPMENT_KEY_FILE,
  developmentSecretKey,
  generateSecretKeyEntry,
  parseSecretKeys,
  secretKeysProblem,
} from "./secretKeys.ts";

const key = () => randomBytes(32).toString("base64");
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-secrets-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("SECRETS_KEYS", () => {
  it("parses <id>:<base64> entries, the first one current", () => {
    const [a, b] = [key(), key()];
    const config = loadConfig({ env: { SECRETS_KEYS: ` k1:${a} , k0:${b}` } });
    expect(config.secretsKeys).toEqual([
      { id: "k1", key: a },
      { id: "k0", key: b },
    ]);
    expect(createConfiguredSecretBox(config).currentKeyId).toBe("k1");
  });

  it("is undefined when unset or empty", () => {
    expect(loadConfig({ env: {} }).secretsKeys).toBeUndefined();
    expect(loadConfig({ env: { SECRETS_KEYS: "" } }).secretsKeys).toBeUndefined();
  });

  const short = randomBytes(31).toString("base64");
  it.each([
    [",", "must list at least one <id>:<base64 key>"],
    [key(), "entry 1 must read <id>:<base64 of 32 bytes>"],
    [`k1:${key()},bad id:${key()}`, "entry 2: the key id must be 1 to 32"],
    [`${"k".repeat(33)}:${key()}`, "entry 1: the key id must be 1 to 32"],
    [`:${key()}`, "entry 1: the key id"],
    [`k1:${short}`, 'key "k1" must be 32 bytes in base64 (got 31 bytes)'],
    ["k1:not*base64", 'key "k1" must be base64'],
    ["k1:", 'key "k1" must be base64'],
    [`k1:${key()},k1:${key()}`, 'key id "k1" is given twice'],
  ])("refuses %j at start with a ConfigError naming SECRETS_KEYS", (raw, message) => {
    const load = () => loadConfig({ env: { SECRETS_KEYS: raw } });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`environment variable SECRETS_KEYS ${message}`);
  });

  it("never quotes key material in its errors", () => {
    expect(() => parseSecretKeys(`k1:${short}`)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(short) }),
    );
  });

  it("is masked in `platform config`'s rows", async () => {
    const { describeConfig } = await import("../config/loadConfig.ts");
    const rows = describeConfig(loadConfig({ env: { SECRETS_KEYS: `k1:${key()}` } }));
    expect(rows.find((r) => r.env === "SECRETS_KEYS")?.value).toBe("(set)");
  });

  it("generateSecretKeyEntry makes an entry SECRETS_KEYS accepts", () => {
    const entry = generateSecretKeyEntry("k7");
    expect(entry).toMatch(/^k7:[A-Za-z0-9+/]{43}=$/);
    expect(parseSecretKeys(entry)[0]?.id).toBe("k7");
    expect(generateSecretKeyEntry()).toMatch(/^k\d{8}:/);
    expect(() => generateSecretKeyEntry("no spaces")).toThrow(ConfigError);
  });
});

describe("the development key", () => {
  it("is created once in DATA_DIR with mode 0600, then reused", () => {
    const dir = join(tempDir(), "nested", "data");
    const first = developmentSecretKey(dir);
    const file = join(dir, DEVELOPMENT_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.id).toBe("dev");
    expect(readFileSync(file, "utf8")).toBe(`dev:${first.key}\n`);
    expect(developmentSecretKey(dir)).toEqual(first);

    // What one box sealed, the next process (another box on the same DATA_DIR) opens.
    const sealed = createConfiguredSecretBox({ role: "all", secretsKeys: undefined, dataDir: dir }).seal("t", "ad");
    expect(createConfiguredSecretBox({ role: "all", secretsKeys: undefined, dataDir: dir }).open(sealed, "ad")).toBe(
      "t",
    );
    // And SECRETS_KEYS naming it (behind a new current key) keeps opening those values.
    const rotated = createSecretBox({ keys: [{ id: "k1", key: key() }, first] });
    expect(rotated.open(sealed, "ad")).toBe("t");
    expect(rotated.needsRotation(sealed)).toBe(true);
  });

  it("leaves no temporary file behind, and refuses a corrupt key file naming it", () => {
    const dir = tempDir();
    developmentSecretKey(dir);
    expect(readdirSync(dir)).toEqual([DEVELOPMENT_KEY_FILE]);
    writeFileSync(join(dir, DEVELOPMENT_KEY_FILE), "dev:truncated\n");
    expect(() => developmentSecretKey(dir)).toThrow(/Invalid development key file .*secrets\.key: key "dev" must be/);
  });

  it("differs between data folders (random, not derived)", () => {
    expect(developmentSecretKey(tempDir()).key).not.toBe(developmentSecretKey(tempDir()).key);
  });

  it("tightens a key file found readable by others", () => {
    const dir = tempDir();
    developmentSecretKey(dir);
    chmodSync(join(dir, DEVELOPMENT_KEY_FILE), 0o644);
    developmentSecretKey(dir);
    expect(statSync(join(dir, DEVELOPMENT_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it("is not used when SECRETS_KEYS is set", () => {
    const dir = tempDir();
    const box = createConfiguredSecretBox({ role: "all", secretsKeys: [{ id: "k1", key: key() }], dataDir: dir });
    expect(box.currentKeyId).toBe("k1");
    expect(() => statSync(join(dir, DEVELOPMENT_KEY_FILE))).toThrow();
  });
});

describe("roles", () => {
  it("api and worker need SECRETS_KEYS; all falls back to the development key", () => {
    const dataDir = tempDir();
    for (const role of ["api", "worker"] as const) {
      expect(secretKeysProblem({ role, secretsKeys: undefined })).toContain(`--role ${role} needs SECRETS_KEYS`);
      expect(() => createConfiguredSecretBox({ role, secretsKeys: undefined, dataDir })).toThrow(ConfigError);
      expect(secretKeysProblem({ role, secretsKeys: [{ id: "k1", key: key() }] })).toBeUndefined();
    }
    expect(secretKeysProblem({ role: "all", secretsKeys: undefined })).toBeUndefined();
  });
});
