/**
 * Child process of the watcher's kill test (watcher.kill.test.ts), run with `node --import tsx`: the
 * deposit-address watcher (with the quote context it prices deposits with) on a database and chains given in
 * WATCHER_CHILD_CONFIG. When `crashAt` names a step, the child prints `CRASH <step> <seq>` on reaching it and
 * stalls there until the test SIGKILLs it.
 */
import { type ChainEndpoint, createLogger, loadConfig } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { createQuoteContext } from "../quotes/quoteContext.ts";
import { createSuggestedFeesService } from "../services/suggestedFees.ts";
import { startDepositAddressWatcher, type WatcherStep } from "./watcher.ts";

export interface WatcherChildConfig extends KillTestDatabaseLocation {
  chains: ChainEndpoint[];
  relayerKey: `0x${string}`;
  signerKey: `0x${string}`;
  crashAt?: WatcherStep;
}

const { config, db } = await startKillTestChild<WatcherChildConfig>("WATCHER_CHILD_CONFIG");
const logger = createLogger({ level: process.env.WATCHER_TEST_LOG ?? "silent" });
const quotes = createQuoteContext({
  config: { ...loadConfig({ env: {} }), crosschainRelayerKey: config.relayerKey },
  db,
  logger,
  chains: config.chains,
} as never);
quotes.cache.start();
startDepositAddressWatcher({
  db,
  chains: quotes.chains,
  privateKey: config.signerKey,
  suggestedFees: createSuggestedFeesService(quotes),
  logger,
  pollMs: 50,
  // The killed process never releases its lease: its successor takes over when it expires. Not shorter:
  // a renewal must get through while the child starts (the embedded database's one connection, a busy CPU).
  leaseTtlSec: 2,
  hooks: {
    async onStep(step, info) {
      if (step !== config.crashAt) return;
      process.stdout.write(`CRASH ${step} ${info.seq}\n`);
      await new Promise(() => {}); // stall here: the parent kills us
    },
  },
});
