/**
 * Child process of the kill test (relayer.kill.test.ts), run with `node --import tsx`: a relayer on a
 * database and chains given in RELAYER_CHILD_CONFIG. When `crashAt` names a fill step, the child prints
 * `CRASH <step> <nonce> <txHash>` on reaching it and stalls there until the test SIGKILLs it. It loads its
 * modules at once but opens the database only when a line arrives on stdin, so the test can start the
 * next child while the previous one runs (a PGlite folder has one user at a time).
 */
import { once } from "node:events";
import { createDatabase, createLogger } from "@platform/kernel";
import type { SpokeChain } from "../deployments.ts";
import { startRelayer } from "./index.ts";
import type { FillStep } from "./types.ts";

export interface ChildConfig {
  /** PostgreSQL URL, or a PGlite folder in `dataDir`. */
  url?: string;
  dataDir: string;
  chains: SpokeChain[];
  privateKey: `0x${string}`;
  destinationChainIds: number[];
  crashAt?: FillStep;
}

const config = JSON.parse(process.env.RELAYER_CHILD_CONFIG ?? "null") as ChildConfig | null;
if (!config) throw new Error("RELAYER_CHILD_CONFIG is not set");
process.stdout.write("LOADED\n");
await once(process.stdin, "data");
const db = await createDatabase({ url: config.url, dataDir: config.dataDir });
startRelayer({
  db,
  chains: config.chains,
  privateKey: config.privateKey,
  logger: createLogger({ level: process.env.RELAYER_TEST_LOG ?? "silent" }),
  pollMs: 50,
  marginBps: 0,
  isRouteEnabled: () => true,
  destinationChainIds: config.destinationChainIds,
  // The killed process never releases its lease: its successor takes over when it expires.
  tuning: { leaseTtlSec: 1 },
  hooks: {
    async onStep(step, info) {
      if (step !== config.crashAt) return;
      process.stdout.write(`CRASH ${step} ${info.nonce} ${info.txHash}\n`);
      await new Promise(() => {}); // stall here: the parent kills us
    },
  },
});
process.stdout.write("STARTED\n");
