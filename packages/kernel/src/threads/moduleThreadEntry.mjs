// First file of every module thread (moduleThread.ts). A thread does not inherit the main thread's loader:
// a TypeScript module (tests, PLATFORM_TSX=1) needs tsx's loader registered here; the platform's JavaScript
// build (packages/platform/build/compile.mjs) needs none, and saves the loader's isolate in every thread.
import { workerData } from "node:worker_threads";

if (workerData.module.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.module);
