/**
 * The relayer role: fills pending deposits of `crosschain.deposits` on their destination chains with its
 * own key, durably and exactly once across crashes. See README.md for the rules and the crash protocol.
 */
import { createChainClient } from "@platform/chains";
import type { Database, Logger } from "@platform/kernel";
import { privateKeyToAccount } from "viem/accounts";
import type { SpokeChain } from "../deployments.ts";
import { createChainReader } from "./chainReader.ts";
import type { Route } from "./decision.ts";
import { type DestinationWorker, startDestinationWorker } from "./destinationWorker.ts";
import { createFillSender } from "./fillSender.ts";
import { createIntentsStore } from "./intentsStore.ts";
import { createRelayerLease, leaseHolderId } from "./lease.ts";
import { createNonceManager } from "./nonceManager.ts";
import type { ChainRelayerStatus, PendingDeposit, RelayerHooks, RelayerStatus } from "./types.ts";
import { DEFAULT_TUNING, type RelayerTuning } from "./workerEnv.ts";

export type { Route } from "./decision.ts";
export type {
  ChainRelayerStatus,
  FillStep,
  PendingDeposit,
  RelayerHooks,
  RelayerStatus,
  SkipReason,
} from "./types.ts";
export type { RelayerTuning } from "./workerEnv.ts";

export interface StartRelayerParameters {
  db: Database;
  chains: readonly SpokeChain[];
  privateKey: `0x${string}`;
  logger: Logger;
  /** How often to look for pending deposits (e.g. 200). */
  pollMs: number;
  /** Required profit over gas cost, in bps of the input amount. */
  marginBps: number;
  isRouteEnabled(route: Route): boolean;
  /**
   * Fill cost in output-token units for this deposit (gas × gas price converted), or undefined to ignore gas;
   * `gasUnits`, when given, is the fill's simulated gas (a message fill's calls included).
   */
  estimateFillCost?(deposit: PendingDeposit, gasUnits?: bigint): Promise<bigint | undefined>;
  /** Only these destination chains (default all with a SpokePool). */
  destinationChainIds?: number[];
  /** Delays and limits (defaults in README). */
  tuning?: RelayerTuning;
  /** Test hooks at the crash-relevant points of a fill. */
  hooks?: RelayerHooks;
}

export interface Relayer {
  /** Stops every chain's loop after its current step; nothing is left half-written (intents are durable). */
  stop(): Promise<void>;
  status: RelayerStatus;
  /** Polls now instead of at the next interval (e.g. when the indexer stored new deposits). */
  wake(): void;
}

export function startRelayer(p: StartRelayerParameters): Relayer {
  const account = privateKeyToAccount(p.privateKey);
  const log = p.logger.child({ job: "crosschain-relayer", relayer: account.address });
  const wanted = p.destinationChainIds;
  const destinations = p.chains.filter((c) => c.spokePool && (!wanted || wanted.includes(c.chainId)));
  for (const id of wanted ?? []) {
    if (!destinations.some((c) => c.chainId === id)) log.warn({ chainId: id }, "no SpokePool known on this chain");
  }
  const tuning = { ...DEFAULT_TUNING, ...p.tuning };
  const store = createIntentsStore(p.db);
  const holder = leaseHolderId();
  const status: RelayerStatus = {
    address: account.address,
    running: true,
    chains: [],
    sent: 0,
    replaced: 0,
    confirmed: 0,
    failed: 0,
    skips: {},
  };
  const workers: DestinationWorker[] = destinations.map((chain) => {
    const chainStatus: ChainRelayerStatus = {
      chainId: chain.chainId,
      state: "starting",
      nextNonce: null,
      inFlight: 0,
      lastPollAt: null,
      lastError: null,
    };
    status.chains.push(chainStatus);
    const client = createChainClient({ chainId: chain.chainId, rpcUrl: chain.rpcUrl });
    return startDestinationWorker(
      {
        chain,
        lease: createRelayerLease(p.db, account.address, chain.chainId, tuning.leaseTtlSec, holder),
        chains: p.chains,
        address: account.address,
        store,
        reader: createChainReader(chain, client, account.address),
        sender: createFillSender(chain, client, account),
        nonces: createNonceManager(),
        log: log.child({ chainId: chain.chainId }),
        status,
        chainStatus,
        hooks: p.hooks ?? {},
        tuning,
        marginBps: p.marginBps,
        isRouteEnabled: p.isRouteEnabled,
        estimateFillCost: p.estimateFillCost,
        tracked: new Map(),
      },
      p.pollMs,
    );
  });
  log.info({ chains: destinations.map((c) => c.chainId), marginBps: p.marginBps }, "relayer started");
  return {
    status,
    wake: () => {
      for (const w of workers) w.wake();
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      status.running = false;
      log.info("relayer stopped");
    },
  };
}
