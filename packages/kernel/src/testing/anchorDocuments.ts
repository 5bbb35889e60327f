/**
 * The anchors' own API documents (Alpaca's trading and market data documents, the Across API's, Open
 * Wearables') are the yardstick of the `*.anchor.test.ts` tests, but they are not the project's to ship: the
 * tests read them where the team keeps them, `shared/reference/` beside the clone, or from
 * `ANCHOR_DOCUMENTS_DIR`. `vitest.config.ts` leaves those tests out, and says so, on a machine that has
 * neither; CI has them and must run them.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The folder holding the anchors' documents, or undefined when this machine has none. */
export function anchorDocumentsDir(): string | undefined {
  const candidates = [process.env.ANCHOR_DOCUMENTS_DIR, join(REPOSITORY_ROOT, "..", "shared", "reference")];
  return candidates.find((dir): dir is string => typeof dir === "string" && existsSync(dir));
}

/**
 * One anchor document, parsed (JSON, or YAML by its extension).
 *
 * @example
 * const trading = readAnchorDocument("alpaca/trading-api.json");
 * const across = readAnchorDocument("across-openapi.yaml");
 */
export function readAnchorDocument(relativePath: string): unknown {
  const dir = anchorDocumentsDir();
  if (!dir) {
    throw new Error(
      `The anchors' documents are not on this machine: put them in ${join(REPOSITORY_ROOT, "..", "shared", "reference")} or set ANCHOR_DOCUMENTS_DIR`,
    );
  }
  const text = readFileSync(join(dir, relativePath), "utf8");
  return /\.ya?ml$/.test(relativePath) ? parseYaml(text) : JSON.parse(text);
}
