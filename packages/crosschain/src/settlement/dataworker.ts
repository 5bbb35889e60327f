/**
 * The dataworker: on exactly one instance (kernel lease `crosschain.settlement`), it builds the next root
 * bundle from the indexed events, proposes it on the HubPool as the trusted proposer, and executes it to the
 * end (bundleSteps.ts); then the next. Its state is the database and the chains: killed at any instant, the
 * next holder continues the open bundle. See README.md in this folder.
 */
import { createLeases, type Database, type LeasedRunner, type Logger, runWhileLeased } from "@platform/kernel";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SpokeChain } from "../deployments.ts";
import { shortError } from "../relayer/fillSender.ts";
import { createBundlesRepository, type Fence, type StoredBundle } from "../store/bundlesRepository.ts";
import { type AdvanceResult, advanceBundle, type SettlementHooks } from "./bundleSteps.ts";
import { createDevnetBridge } from "./devnetBridge.ts";
import { ensureHubSetup } from "./hubSetup.ts";
import { buildNextBundle, recordHubReserves } from "./nextBundle.ts";
import { settlementChainsOf } from "./settlementChains.ts";
import { createTxIntents } from "./txIntents.ts";

export const SETTLEMENT_LEASE = "crosschain.settlement";

export interface StartDataworkerParameters {
  db: Database;
  chains: readonly SpokeChain[];
  /** The trusted proposer's key (on the devnet, the admin's: it also bridges). */
  privateKey: Hex;
  logger: Logger;
  /** Pause between ticks when there is nothing to do (the bundle interval). */
  intervalMs: number;
  /** Blocks below each chain's head a bundle's range ends. */
  endBlockBuffer: number;
  /** Devnet only: move the HubPool's Timer past the liveness. */
  fastLiveness: boolean;
  leaseTtlMs: number;
  /** Relayer refund leaf size (MAX_RELAYER_REPAYMENT_LEAF_SIZE); default 25. */
  maxRefundLeafSize?: number;
  /** Pool rebalance leaf size (MAX_POOL_REBALANCE_LEAF_SIZE); default 25. */
  maxPoolLeafSize?: number;
  hooks?: SettlementHooks;
}

/** What `platform status` shows of the dataworker. */
export interface DataworkerStatus {
  state: "standby" | "idle" | "settling" | "waiting" | "stopped" | "error";
  hubChainId: number;
  /** The bundle in flight or the last one settled. */
  bundle: { id: number; status: string; ranges: { chainId: number; start: string; end: string }[] } | null;
  bundlesExecuted: number;
  lastTickAt: string | null;
  lastError: string | null;
}

export interface Dataworker {
  status(): DataworkerStatus;
  /** Ticks now instead of after the interval (e.g. new events were indexed). */
  wake(): void;
  stop(): Promise<void>;
  runner: LeasedRunner;
}

const sleep = (ms: number, signal: AbortSignal, wake: { resolve?: () => void }) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      wake.resolve = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
    wake.resolve = done;
  });

/** Starts the dataworker, or returns undefined (with a warning) when no chain has a HubPool. */
export function startDataworker(p: StartDataworkerParameters): Dataworker | undefined {
  const log = p.logger.child({ job: "crosschain-dataworker" });
  const chains = settlementChainsOf(p.chains);
  if (!chains) {
    log.warn("settlement not started: no chain has a HubPool address");
    return undefined;
  }
  const account = privateKeyToAccount(p.privateKey);
  const repo = createBundlesRepository(p.db);
  const leases = createLeases({ db: p.db });
  const wake: { resolve?: () => void } = {};
  const status: DataworkerStatus = {
    state: "standby",
    hubChainId: chains.hubChainId,
    bundle: null,
    bundlesExecuted: 0,
    lastTickAt: null,
    lastError: null,
  };
  const show = (b: StoredBundle | undefined) => {
    status.bundle = b
      ? {
          id: b.id,
          status: b.status,
          ranges: b.ranges.map((r) => ({ chainId: r.chainId, start: r.start.toString(), end: r.end.toString() })),
        }
      : status.bundle;
  };
  const fastLiveness = p.fastLiveness && chains.timer !== undefined;

  const runner = runWhileLeased(
    { db: p.db, logger: log, name: SETTLEMENT_LEASE, ttlMs: p.leaseTtlMs },
    async ({ lease, signal }) => {
      const fence: Fence = (tx) => leases.assertHeld(tx, lease);
      const intents = createTxIntents({ db: p.db, fence, account, clientOf: chains.clientOf });
      const ctx = {
        chains,
        repo,
        intents,
        bridge: chains.mockAdapter ? createDevnetBridge(chains, intents) : undefined,
        fence,
        fastLiveness,
        logger: log,
        hooks: p.hooks ?? {},
      };
      const build = {
        db: p.db,
        chains,
        repo,
        fence,
        endBlockBuffer: p.endBlockBuffer,
        maxRefundLeafSize: p.maxRefundLeafSize ?? 25,
        maxPoolLeafSize: p.maxPoolLeafSize ?? 25,
        logger: log,
      };
      let setUp = false;
      while (!signal.aborted) {
        let result: AdvanceResult | "idle" = "idle";
        try {
          if (!setUp) {
            await ensureHubSetup({ chains, account, logger: log });
            setUp = true;
          }
          await recordHubReserves(build);
          let bundle = await repo.openBundle();
          if (!bundle) {
            const id = await buildNextBundle(build);
            bundle = id === undefined ? undefined : await repo.get(id);
            if (bundle) await ctx.hooks.onStep?.("built", { bundleId: bundle.id });
          }
          show(bundle);
          if (bundle) {
            status.state = "settling";
            result = await advanceBundle(ctx, bundle);
            show(await repo.get(bundle.id));
            if (result === "executed") {
              status.bundlesExecuted++;
              log.info({ bundleId: bundle.id, ranges: status.bundle?.ranges }, "bundle executed");
            }
          }
          status.state = result === "waiting" ? "waiting" : "idle";
          status.lastError = null;
        } catch (error) {
          if (signal.aborted) break;
          status.state = "error";
          status.lastError = shortError(error);
          log.error({ err: error }, "settlement tick failed; retrying");
        }
        status.lastTickAt = new Date().toISOString();
        // Right after a bundle executed there may be more to settle (a catch-up): go on at once.
        if (result !== "executed") await sleep(p.intervalMs, signal, wake);
      }
    },
  );
  log.info({ hubChainId: chains.hubChainId, proposer: account.address, fastLiveness }, "dataworker started");
  return {
    runner,
    status: () => ({ ...status, state: runner.holding() ? status.state : "standby" }),
    wake: () => wake.resolve?.(),
    async stop() {
      await runner.stop();
      status.state = "stopped";
    },
  };
}
