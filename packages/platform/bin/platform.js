#!/usr/bin/env node
// The `platform` command. Its sources are TypeScript: it runs their JavaScript build, made again whenever a
// source changed (../build/compile.mjs says why: tsx's loader costs about 60 MiB a process); PLATFORM_TSX=1
// runs the sources through tsx's loader instead.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

if (process.env.PLATFORM_TSX === "1") {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli.ts");
} else {
  const { ensureBuild } = await import("../build/compile.mjs");
  const dir = await ensureBuild();
  await import(pathToFileURL(join(dir, "packages/platform/src/cli.js")).href);
}
