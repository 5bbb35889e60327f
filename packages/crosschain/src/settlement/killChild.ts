/**
 * Child process of the dataworker kill test (dataworker.kill.test.ts), run with `node --import tsx`: the
 * dataworker on a database and chains given in SETTLEMENT_CHILD_CONFIG. On reaching `crashAt` it prints
 * `CRASH <step> <info>` and stalls until the test SIGKILLs it.
 */
import { createLogger } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import type { SpokeChain } from "../deployments.ts";
import type { SettlementStep } from "./bundleSteps.ts";
import { startDataworker } from "./dataworker.ts";

export interface ChildConfig extends KillTestDatabaseLocation {
  chains: SpokeChain[];
  privateKey: `0x${string}`;
  crashAt: SettlementStep;
}

const { config, db } = await startKillTestChild<ChildConfig>("SETTLEMENT_CHILD_CONFIG");
startDataworker({
  db,
  chains: config.chains,
  privateKey: config.privateKey,
  logger: createLogger({ level: process.env.SETTLEMENT_TEST_LOG ?? "silent" }),
  intervalMs: 50,
  endBlockBuffer: 0,
  fastLiveness: true,
  // The killed child never releases its lease: the next one takes it when it expires.
  leaseTtlMs: 2_000,
  hooks: {
    async onStep(step, info) {
      if (step !== config.crashAt) return;
      process.stdout.write(
        `CRASH ${step} ${JSON.stringify(info, (_, v) => (typeof v === "bigint" ? v.toString() : v))}\n`,
      );
      await new Promise(() => {}); // stall here: the parent kills us
    },
  },
});
process.stdout.write("STARTED\n");
