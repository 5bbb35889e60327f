// First file of every module thread (moduleThread.ts): the platform runs its TypeScript sources through
// tsx's loader without a build step, and a worker thread needs the loader registered in its own right
// (it does not inherit the main thread's), so this plain module registers it, then imports the module.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.module);
