import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

// Browser tests (`*.browser.test.ts`) drive Debian's chromium through playwright-core (no browser download).
// CI installs it (.ci/run) and must run them; on a machine without it they are left out, and said so.
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const runBrowserTests = existsSync(chromium) || process.env.CI === "true";
if (!runBrowserTests) {
  process.stderr.write(
    `Browser tests left out: no chromium at ${chromium} (apt-get install chromium, or CHROMIUM_PATH)\n`,
  );
}

// Tests against the anchors' own API documents (`*.anchor.test.ts`) read them from `shared/reference/` beside the
// clone or ANCHOR_DOCUMENTS_DIR (kernel's testing/anchorDocuments.ts): the documents are not the project's to ship.
// CI has them and must run these tests; elsewhere, without them, they are left out, and said so.
const anchorDocuments =
  process.env.ANCHOR_DOCUMENTS_DIR ?? fileURLToPath(new URL("../shared/reference", import.meta.url));
const runAnchorTests = existsSync(anchorDocuments) || process.env.CI === "true";
if (!runAnchorTests) {
  process.stderr.write(`Anchor-document tests left out: no ${anchorDocuments} (or ANCHOR_DOCUMENTS_DIR)\n`);
}

// One suite for the whole tree: tests live beside the code they test (packages/*/src/**/*.test.ts);
// tests that drive the started platform with real clients live in e2e/.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "e2e/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...(runBrowserTests ? [] : ["**/*.browser.test.ts"]),
      ...(runAnchorTests ? [] : ["**/*.anchor.test.ts"]),
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests start servers and chains on ephemeral ports; forks isolate native handles (PGlite, child processes).
    pool: "forks",
  },
});
