/**
 * The relayer role: fills pending deposits of `crosschain.deposits` on their destination chains with its
 * own key, durably and exactly once across crashes. See README.md for the rules and the crash protocol.
 *
 * Every instance of a multi-instance deployment starts a relayer with the same key; per destination chain,
 * the kernel lease `crosschain.relayer:<destinationChainId>:<relayer address, lowercase>` picks the one that
 * polls and sends (`runWhileLeased`), and its intent writes carry the lease's fencing token.
 */
import { createChainClient } from "@platform/chains";
import {
  createLeases,
  type Database,
  type LeasedRunner,
  type Logger,
  processHolderId,
  runWhileLeased,
} from "@platform/kernel";
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SpokeChain } from "../deployments.ts";
import { createChainReader } from "./chainReader.ts";
import type { Route } from "./decision.ts";
import { type DestinationWorker, runDestinationWorker } from "./destinationWorker.ts";
import { createFillSender } from "./fillSender.ts";
import { createIntentsStore } from "./intentsStore.ts";
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

/** The kernel lease of a relayer key on a destination chain (one instance fills with the key there). */
export const relayerLeaseName = (destinationChainId: number, relayer: Address) =>
  `crosschain.relayer:${destinationChainId}:${relayer.toLowerCase()}`;

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
  const leases = createLeases({ db: p.db });
  // One holder id for all of this relayer's chains: `platform status` shows which instance fills where.
  const holder = processHolderId();
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
  const chains = destinations.map((chain) => {
    const chainLog = log.child({ chainId: chain.chainId });
    const client = createChainClient({ chainId: chain.chainId, rpcUrl: chain.rpcUrl });
    let worker: DestinationWorker | undefined;
    let runner: LeasedRunner | undefined;
    let workerState: ChainRelayerStatus["state"] = "starting";
    const chainStatus: ChainRelayerStatus = {
      chainId: chain.chainId,
      // The worker's state while this instance holds the chain's lease, else "standby" (or "stopped").
      get state() {
        if (!status.running) return "stopped";
        return runner?.holding() ? workerState : "standby";
      },
      set state(state) {
        workerState = state;
      },
      nextNonce: null,
      inFlight: 0,
      lastPollAt: null,
      lastError: null,
    };
    status.chains.push(chainStatus);
    runner = runWhileLeased(
      {
        db: p.db,
        logger: chainLog,
        name: relayerLeaseName(chain.chainId, account.address),
        ttlMs: tuning.leaseTtlSec * 1000,
        holder,
      },
      async ({ lease, signal }) => {
        workerState = "starting";
        // A tenure starts afresh, as after a restart: the previous holder may have sent since.
        worker = runDestinationWorker(
          {
            chain,
            signal,
            chains: p.chains,
            address: account.address,
            store: createIntentsStore(p.db, (tx) => leases.assertHeld(tx, lease)),
            reader: createChainReader(chain, client, account.address),
            sender: createFillSender(chain, client, account),
            nonces: createNonceManager(),
            log: chainLog,
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
        try {
          await worker.done;
        } finally {
          worker = undefined;
        }
      },
    );
    return { runner, wake: () => worker?.wake() };
  });
  log.info({ chains: destinations.map((c) => c.chainId), marginBps: p.marginBps }, "relayer started");
  return {
    status,
    wake: () => {
      for (const c of chains) c.wake();
    },
    async stop() {
      await Promise.all(chains.map((c) => c.runner.stop()));
      status.running = false;
      log.info("relayer stopped");
    },
  };
}
