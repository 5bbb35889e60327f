/**
 * Child process of the kill test (relayer.kill.test.ts), run with `node --import tsx`: a relayer on a
 * database and chains given in RELAYER_CHILD_CONFIG. When `crashAt` names a fill step, the child prints
 * `CRASH <step> <nonce> <txHash>` on reaching it and stalls there until the test SIGKILLs it. It loads its
 * modules at once but opens the database only when the test says go (`startKillTestChild`), so the test
 * can start the next child while the previous one runs (a PGlite folder has one user at a time).
 */
import { createLogger } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import type { SpokeChain } from "../deployments.ts";
import { startRelayer } from "./index.ts";
import type { FillStep } from "./types.ts";

export interface ChildConfig extends KillTestDatabaseLocation {
  chains: SpokeChain[];
  privateKey: `0x${string}`;
  destinationChainIds: number[];
  crashAt?: FillStep;
}

const { config, db } = await startKillTestChild<ChildConfig>("RELAYER_CHILD_CONFIG");
startRelayer({
  db,
  chains: config.chains,
  privateKey: config.privateKey,
  logger: createLogger({ level: process.env.RELAYER_TEST_LOG ?? "silent" }),
  pollMs: 50,
  marginBps: 0,
  isRouteEnabled: () => true,
  destinationChainIds: config.destinationChainIds,
  // The killed process never releases its lease: its successor takes over when it expires. Not shorter:
  // a renewal must get through while the child starts (the embedded database's one connection, a busy CPU).
  tuning: { leaseTtlSec: 2 },
  hooks: {
    async onStep(step, info) {
      if (step !== config.crashAt) return;
      process.stdout.write(`CRASH ${step} ${info.nonce} ${info.txHash}\n`);
      await new Promise(() => {}); // stall here: the parent kills us
    },
  },
});
process.stdout.write("STARTED\n");
