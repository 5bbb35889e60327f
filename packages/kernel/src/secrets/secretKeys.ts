/**
 * Where the secret box's keys come from: `SECRETS_KEYS` (`<id>:<base64 of 32 bytes>`, comma-separated, the
 * first one current), else, on the one-process embedded setup only, a development key generated once and
 * kept in `DATA_DIR/secrets.key` (mode 0600).
 *
 * The development key is random rather than derived from something fixed: a derived key would be the same
 * on every laptop and in every leaked DATA_DIR-less backup, so anyone could open the stored tokens. Kept in
 * DATA_DIR it lives and dies with the database it protects (PGlite is under DATA_DIR too).
 *
 * Instances that share a PostgreSQL database must share the keys, which a file in each instance's DATA_DIR
 * cannot guarantee: `--role api` and `--role worker` refuse to start without SECRETS_KEYS, and `--role all`
 * on PostgreSQL is warned about (developmentDefaults.ts).
 *
 * @example
 * SECRETS_KEYS=k2:<base64>,k1:<base64>   // seal with k2; values sealed with k1 still open
 * const box = createConfiguredSecretBox(config);
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/parsers.ts";
import { createSecretBox, decodeSecretKey, SECRET_KEY_ID, type SecretBox } from "./secretBox.ts";

/** A configured key: its id and its 32 bytes in base64 (text, so that a Config stays JSON). */
export interface ConfiguredSecretKey {
  id: string;
  key: string;
}

/** The file under DATA_DIR holding the development key, one `<id>:<base64>` line. */
export const DEVELOPMENT_KEY_FILE = "secrets.key";
/** The id of the development key: name it in SECRETS_KEYS to keep opening what it sealed. */
export const DEVELOPMENT_KEY_ID = "dev";

/**
 * `SECRETS_KEYS`' value → its keys, the current (first) one first. Messages name the entry by its id or
 * position, never quote key material: they are printed at start.
 *
 * @example
 * parseSecretKeys("k1:AAAA…=,k0:BBBB…=") // [{ id: "k1", key: "AAAA…=" }, { id: "k0", key: "BBBB…=" }]
 */
export function parseSecretKeys(raw: string): ConfiguredSecretKey[] {
  const entries = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError("must list at least one <id>:<base64 key>");
  const keys: ConfiguredSecretKey[] = [];
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(":");
    const id = colon < 0 ? "" : entry.slice(0, colon).trim();
    if (colon < 0) throw new ConfigError(`entry ${index + 1} must read <id>:<base64 of 32 bytes>`);
    if (!SECRET_KEY_ID.test(id)) {
      throw new ConfigError(`entry ${index + 1}: the key id must be 1 to 32 of A-Z a-z 0-9 _ -`);
    }
    if (keys.some((k) => k.id === id)) throw new ConfigError(`key id "${id}" is given twice`);
    const key = entry.slice(colon + 1).trim();
    try {
      decodeSecretKey(key);
    } catch (error) {
      throw new ConfigError(`key "${id}" ${(error as Error).message}`);
    }
    keys.push({ id, key });
  });
  return keys;
}

/** A new key as a SECRETS_KEYS entry, `<id>:<base64 of 32 random bytes>`. */
export function generateSecretKeyEntry(id = `k${new Date().toISOString().slice(0, 10).replace(/-/g, "")}`): string {
  if (!SECRET_KEY_ID.test(id)) throw new ConfigError(`the key id must be 1 to 32 of A-Z a-z 0-9 _ - (got "${id}")`);
  return `${id}:${randomBytes(32).toString("base64")}`;
}

/**
 * Why this configuration cannot use the secret box, or undefined when it can: api and worker instances
 * share a PostgreSQL database with others, so they need keys all of them share.
 */
export function secretKeysProblem(config: {
  role: "all" | "api" | "worker";
  secretsKeys: ConfiguredSecretKey[] | undefined;
}): string | undefined {
  if (config.role === "all" || config.secretsKeys) return undefined;
  return (
    `--role ${config.role} needs SECRETS_KEYS: every instance on the database must seal and open secrets ` +
    "with the same keys (`platform secrets generate-key` makes one)"
  );
}

/**
 * The development key of `dataDir`, created on first use: 32 random bytes in `DATA_DIR/secrets.key`, mode
 * 0600. Written to a temporary file, then linked into place: the link fails if the key exists, so two
 * processes starting at once agree on the first one's key, and neither reads a half-written file.
 */
export function developmentSecretKey(dataDir: string): ConfiguredSecretKey {
  const file = join(dataDir, DEVELOPMENT_KEY_FILE);
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(file)) {
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(temporary, `${generateSecretKeyEntry(DEVELOPMENT_KEY_ID)}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  // Copied or restored with looser permissions: tightened, since the key opens every stored token.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  let keys: ConfiguredSecretKey[];
  try {
    keys = parseSecretKeys(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`Invalid development key file ${file}: ${(error as Error).message}`);
  }
  return keys[0] as ConfiguredSecretKey;
}

/**
 * The secret box of `config`: SECRETS_KEYS, else the development key of DATA_DIR (`--role all` only; warned
 * about at start by `warnOfDevelopmentDefaults`). Throws ConfigError for a role that needs SECRETS_KEYS.
 */
export function createConfiguredSecretBox(config: {
  role: "all" | "api" | "worker";
  secretsKeys: ConfiguredSecretKey[] | undefined;
  dataDir: string;
}): SecretBox {
  const problem = secretKeysProblem(config);
  if (problem) throw new ConfigError(problem);
  return createSecretBox({ keys: config.secretsKeys ?? [developmentSecretKey(config.dataDir)] });
}
