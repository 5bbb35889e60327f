import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
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

// CI runs the suite twice, on PGlite and on PostgreSQL (.ci/run). Its second pass (SKIP_DATABASE_AGNOSTIC=1)
// leaves out what does not depend on the database, which the first pass already ran: the devnet and anvil
// tests of `chains` (its lease test excepted), settlement's pure and on-chain Merkle tests, and the end-to-end
// files whose subject is a client library or the documents (the storage they touch is tested on both
// databases by the services' integration tests).
const databaseAgnostic = [
  "packages/chains/src/*.test.ts",
  "packages/chains/src/abi/**",
  "packages/chains/src/indexing/{blockFetcher,chainFollower,commonAncestor,logsView,rpcTransport}.test.ts",
  "packages/crosschain/src/settlement/{merkle,merkle.onchain,buildBundle,ranges}.test.ts",
  "packages/crosschain/src/settlement/leaves/**",
  "e2e/{alpacaMarketData,alpacaTradeApi,alpacaMasterChief,brokerageCli,openidClient,wearablesCli}.test.ts",
  "e2e/{acrossAppSdk,acrossAppSdkSwap,generatedClients,fuzz,openapi,openapiRoutes,readmeUrls,logFormat}.test.ts",
];
const skipDatabaseAgnostic = process.env.SKIP_DATABASE_AGNOSTIC === "1";

// One suite for the whole tree: tests live beside the code they test (packages/*/src/**/*.test.ts);
// tests that drive the started platform with real clients live in e2e/.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "e2e/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...(runBrowserTests ? [] : ["**/*.browser.test.ts"]),
      ...(runAnchorTests ? [] : ["**/*.anchor.test.ts"]),
      ...(skipDatabaseAgnostic ? databaseAgnostic : []),
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests start servers and chains on ephemeral ports; forks isolate native handles (PGlite, child processes).
    pool: "forks",
    // Most files wait on chains, child processes and timers rather than compute: two at a time even on two cores
    // (vitest's default there is one). CI on 2 cores: PGlite pass 1,280 s with one, 960 s with two, under load;
    // three made a kill test miss its time limit on a loaded machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
