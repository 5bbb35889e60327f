import { defineConfig } from "vitest/config";

// One suite for the whole tree: tests live beside the code they test (packages/*/src/**/*.test.ts);
// tests that drive the started platform with real clients live in e2e/.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "e2e/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests start servers and chains on ephemeral ports; forks isolate native handles (PGlite, child processes).
    pool: "forks",
  },
});
