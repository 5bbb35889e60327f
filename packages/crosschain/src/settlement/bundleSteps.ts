/**
 * Carries a built bundle to the end: propose → liveness → each pool rebalance leaf → (devnet bridge: tokens
 * and roots to each spoke) → each relayer refund leaf → each slow relay leaf → executed. Every step reads the
 * chain (or its durable intent) before it sends, so the function can be called again after a kill at any
 * instant and continues where the chain and the database say it is: nothing is sent twice, nothing skipped.
 */
import type { Logger } from "@platform/kernel";
import { encodeFunctionData, type Hex } from "viem";
import { relayHash } from "../domain/relayHash.ts";
import type { BundlesRepository, Fence, StoredBundle, StoredRefundLeaf } from "../store/bundlesRepository.ts";
import type { DevnetBridge } from "./devnetBridge.ts";
import { hubPoolAbi, type SettlementChains, spokePoolAbi, timerAbi } from "./settlementChains.ts";
import { StepRevertedError, type TxIntents } from "./txIntents.ts";

/** Points after each durable step, for kill tests and progress logs. */
export type SettlementStep =
  | "built"
  | "proposed"
  | "liveness-passed"
  | "pool-leaf-executed"
  | "tokens-bridged"
  | "roots-relayed"
  | "refund-leaf-executed"
  | "returned-to-hub"
  | "slow-leaf-executed"
  | "executed";

export interface SettlementHooks {
  onStep?(step: SettlementStep, info: Record<string, unknown>): void | Promise<void>;
}

export interface BundleStepsContext {
  chains: SettlementChains;
  repo: BundlesRepository;
  intents: TxIntents;
  /** The devnet's bridge stand-in; undefined where real bridges relay roots and tokens. */
  bridge: DevnetBridge | undefined;
  fence: Fence;
  /** Devnet only: move the HubPool's Timer past the liveness instead of waiting it out. */
  fastLiveness: boolean;
  logger: Logger;
  hooks: SettlementHooks;
}

export type AdvanceResult = "executed" | "abandoned" | "waiting";

/** `HubPool.rootBundleProposal()` (HubPoolInterface.RootBundle). */
interface Proposal {
  poolRebalanceRoot: Hex;
  claimedBitMap: bigint;
  unclaimedPoolRebalanceLeafCount: number;
  challengePeriodEndTimestamp: number;
}

async function readProposal(ctx: BundleStepsContext): Promise<Proposal> {
  const r = (await ctx.chains.clientOf(ctx.chains.hubChainId).readContract({
    address: ctx.chains.hubPool,
    abi: hubPoolAbi,
    functionName: "rootBundleProposal",
  })) as readonly [Hex, Hex, Hex, bigint, Hex, number, number];
  return {
    poolRebalanceRoot: r[0],
    claimedBitMap: r[3],
    unclaimedPoolRebalanceLeafCount: r[5],
    challengePeriodEndTimestamp: r[6],
  };
}

async function timerNow(ctx: BundleStepsContext): Promise<bigint> {
  const { timer } = ctx.chains;
  if (!timer) return 0n;
  return (await ctx.chains.clientOf(ctx.chains.hubChainId).readContract({
    address: timer,
    abi: timerAbi,
    functionName: "getCurrentTime",
  })) as bigint;
}

/** Sets the HubPool's Timer to `time` unless it is there already (it never goes back: LP fees divide by it). */
async function setTimer(ctx: BundleStepsContext, bundleId: number, step: string, time: bigint) {
  const { timer } = ctx.chains;
  if (!timer) return;
  if (!(await ctx.intents.hasIntent(bundleId, step)) && (await timerNow(ctx)) >= time) return;
  await ctx.intents.send({
    bundleId,
    step,
    chainId: ctx.chains.hubChainId,
    to: timer,
    data: encodeFunctionData({ abi: timerAbi, functionName: "setCurrentTime", args: [time] }),
  });
}

/** The bundle's end blocks are still canonical (else what it was built from may be gone). */
async function rangesCanonical(ctx: BundleStepsContext, bundle: StoredBundle): Promise<boolean> {
  for (const r of bundle.ranges) {
    // A chain that reorganised to a shorter one has no such block any more.
    const block = await ctx.chains
      .clientOf(r.chainId)
      .getBlock({ blockNumber: r.end })
      .catch(() => undefined);
    if (block?.hash?.toLowerCase() !== r.endHash.toLowerCase()) return false;
  }
  return true;
}

async function propose(ctx: BundleStepsContext, bundle: StoredBundle): Promise<AdvanceResult | undefined> {
  const hubId = ctx.chains.hubChainId;
  if (!(await ctx.intents.hasIntent(bundle.id, "propose"))) {
    if (!(await rangesCanonical(ctx, bundle))) {
      await ctx.repo.abandon(ctx.fence, bundle.id, "a reorg replaced an end block before the proposal");
      ctx.logger.warn({ bundleId: bundle.id }, "bundle abandoned: its ranges were reorganised");
      return "abandoned";
    }
    const active = await readProposal(ctx);
    if (active.unclaimedPoolRebalanceLeafCount > 0) {
      ctx.logger.info({ bundleId: bundle.id, root: active.poolRebalanceRoot }, "another proposal is pending");
      return "waiting";
    }
    // The HubPool's clock follows the hub's head (never back), so the challenge end it reports is real time.
    const head = await ctx.chains.clientOf(hubId).getBlock();
    await setTimer(ctx, bundle.id, "clock:propose", head.timestamp);
  }
  const receipt = await ctx.intents.send({
    bundleId: bundle.id,
    step: "propose",
    chainId: hubId,
    to: ctx.chains.hubPool,
    data: encodeFunctionData({
      abi: hubPoolAbi,
      functionName: "proposeRootBundle",
      args: [
        bundle.ranges.map((r) => r.end),
        bundle.poolLeafCount,
        bundle.poolRebalanceRoot,
        bundle.relayerRefundRoot,
        bundle.slowRelayRoot,
      ],
    }),
  });
  const proposal = await readProposal(ctx);
  await ctx.repo.markProposed(ctx.fence, bundle.id, {
    tx: receipt.transactionHash,
    block: receipt.blockNumber,
    challengeEnd: BigInt(proposal.challengePeriodEndTimestamp),
  });
  bundle.challengeEnd = BigInt(proposal.challengePeriodEndTimestamp);
  await ctx.hooks.onStep?.("proposed", { bundleId: bundle.id, challengeEnd: proposal.challengePeriodEndTimestamp });
  return undefined;
}

async function passLiveness(ctx: BundleStepsContext, bundle: StoredBundle): Promise<boolean> {
  const end = bundle.challengeEnd ?? 0n;
  if (ctx.chains.timer && ctx.fastLiveness) {
    await setTimer(ctx, bundle.id, "clock:liveness", end + 1n);
    return true;
  }
  const head = await ctx.chains.clientOf(ctx.chains.hubChainId).getBlock();
  if (head.timestamp <= end) return false;
  await setTimer(ctx, bundle.id, "clock:liveness", head.timestamp);
  return true;
}

async function executePoolLeaves(ctx: BundleStepsContext, bundle: StoredBundle) {
  const leaves = await ctx.repo.poolLeaves(bundle.id);
  for (const leaf of leaves) {
    const step = `pool-leaf:${leaf.leafId}`;
    if (!leaf.execTx) {
      const claimed = ((await readProposal(ctx)).claimedBitMap >> BigInt(leaf.leafId)) & 1n;
      if (claimed && !(await ctx.intents.hasIntent(bundle.id, step))) {
        throw new Error(`pool leaf ${leaf.leafId} of bundle ${bundle.id} was executed by someone else`);
      }
      const receipt = await ctx.intents.send({
        bundleId: bundle.id,
        step,
        chainId: ctx.chains.hubChainId,
        to: ctx.chains.hubPool,
        data: encodeFunctionData({
          abi: hubPoolAbi,
          functionName: "executeRootBundle",
          args: [
            leaf.chainId,
            leaf.groupIndex,
            leaf.bundleLpFees,
            leaf.netSendAmounts,
            leaf.runningBalances,
            leaf.leafId,
            leaf.l1Tokens,
            leaf.proof,
          ],
        }),
      });
      await ctx.repo.setPoolLeafExecuted(ctx.fence, bundle.id, leaf.leafId, receipt.transactionHash);
      await ctx.hooks.onStep?.("pool-leaf-executed", { bundleId: bundle.id, leafId: leaf.leafId });
    }
    if (!ctx.bridge) continue;
    const chainId = Number(leaf.chainId);
    for (const [i, l1Token] of leaf.l1Tokens.entries()) {
      const amount = leaf.netSendAmounts[i] ?? 0n;
      const l2Token = ctx.chains.tokens.l2TokenOf(chainId, l1Token);
      if (amount <= 0n || !l2Token) continue;
      const spoke = ctx.chains.chain(chainId).spokePool;
      await ctx.bridge.credit(bundle.id, `bridge:${leaf.leafId}:${l1Token}`, chainId, l2Token, spoke, amount);
      await ctx.hooks.onStep?.("tokens-bridged", { bundleId: bundle.id, chainId, l1Token, amount });
    }
  }
  return leaves;
}

/** The roots reach each chain that has a groupIndex-0 leaf; returns each chain's spoke root bundle id. */
async function relayRoots(ctx: BundleStepsContext, bundle: StoredBundle, refundLeaves: StoredRefundLeaf[]) {
  const ids = new Map<number, number>();
  for (const l of refundLeaves) if (l.spokeRootBundleId !== null) ids.set(Number(l.chainId), l.spokeRootBundleId);
  const leaves = await ctx.repo.poolLeaves(bundle.id);
  for (const leaf of leaves.filter((l) => l.groupIndex === 0n)) {
    const chainId = Number(leaf.chainId);
    if (ids.has(chainId)) continue;
    // Without the devnet bridge, a canonical bridge relays the roots: wait until the spoke's event is indexed.
    const id = ctx.bridge
      ? await ctx.bridge.relayRoots(bundle.id, chainId, bundle.relayerRefundRoot, bundle.slowRelayRoot)
      : await ctx.repo.relayedRootBundleId(chainId, bundle.relayerRefundRoot, bundle.slowRelayRoot);
    if (id === undefined) continue;
    await ctx.repo.setSpokeRootBundleId(ctx.fence, bundle.id, chainId, id);
    ids.set(chainId, id);
    await ctx.hooks.onStep?.("roots-relayed", { bundleId: bundle.id, chainId, rootBundleId: id });
  }
  return ids;
}

async function executeRefundLeaves(ctx: BundleStepsContext, bundle: StoredBundle, ids: Map<number, number>) {
  for (const leaf of await ctx.repo.refundLeaves(bundle.id)) {
    const chainId = Number(leaf.chainId);
    const rootBundleId = ids.get(chainId);
    if (rootBundleId === undefined) return false;
    if (!leaf.execTx) {
      const receipt = await ctx.intents.send({
        bundleId: bundle.id,
        step: `refund-leaf:${chainId}:${leaf.leafId}`,
        chainId,
        to: ctx.chains.chain(chainId).spokePool,
        data: encodeFunctionData({
          abi: spokePoolAbi,
          functionName: "executeRelayerRefundLeaf",
          args: [
            rootBundleId,
            {
              amountToReturn: leaf.amountToReturn,
              chainId: leaf.chainId,
              refundAmounts: leaf.refundAmounts,
              leafId: leaf.leafId,
              l2TokenAddress: leaf.l2TokenAddress,
              refundAddresses: leaf.refundAddresses,
            },
            leaf.proof,
          ],
        }),
      });
      await ctx.repo.setRefundLeafExecuted(ctx.fence, bundle.id, leaf.leafId, receipt.transactionHash);
      await ctx.hooks.onStep?.("refund-leaf-executed", { bundleId: bundle.id, chainId, leafId: leaf.leafId });
    }
    // The spoke sent amountToReturn to its withdrawal recipient; on the devnet the bridge takes it to the hub.
    const l1Token = ctx.chains.tokens.l1TokenOf(chainId, leaf.l2TokenAddress);
    if (ctx.bridge && leaf.amountToReturn > 0n && l1Token) {
      const hubId = ctx.chains.hubChainId;
      const step = `return:${chainId}:${leaf.leafId}`;
      await ctx.bridge.credit(bundle.id, step, hubId, l1Token, ctx.chains.hubPool, leaf.amountToReturn);
      await ctx.hooks.onStep?.("returned-to-hub", { bundleId: bundle.id, chainId, amount: leaf.amountToReturn });
    }
  }
  return true;
}

const FILL_STATUS_FILLED = 2n;

async function executeSlowLeaves(ctx: BundleStepsContext, bundle: StoredBundle, ids: Map<number, number>) {
  for (const leaf of await ctx.repo.slowLeaves(bundle.id)) {
    if (leaf.state !== "pending") continue;
    const chainId = Number(leaf.chainId);
    const rootBundleId = ids.get(chainId);
    if (rootBundleId === undefined) return false;
    const step = `slow-leaf:${leaf.relayHash}`;
    const client = ctx.chains.clientOf(chainId);
    const spoke = ctx.chains.chain(chainId).spokePool;
    if (!(await ctx.intents.hasIntent(bundle.id, step))) {
      // A relayer may have filled it since, or its deadline passed: the next bundle takes the money back.
      const status = (await client.readContract({
        address: spoke,
        abi: spokePoolAbi,
        functionName: "fillStatuses",
        // The spoke's key (over the message itself), not the indexer's relay hash (over its hash).
        args: [relayHash(leaf.relayData, leaf.chainId)],
      })) as bigint;
      const head = await client.getBlock();
      const state =
        status === FILL_STATUS_FILLED
          ? "superseded"
          : BigInt(leaf.relayData.fillDeadline) < head.timestamp
            ? "expired"
            : undefined;
      if (state) {
        await ctx.repo.setSlowLeafState(ctx.fence, bundle.id, leaf.relayHash, state);
        continue;
      }
    }
    const receipt = await ctx.intents.send({
      bundleId: bundle.id,
      step,
      chainId,
      to: spoke,
      data: encodeFunctionData({
        abi: spokePoolAbi,
        functionName: "executeSlowRelayLeaf",
        args: [
          { relayData: leaf.relayData, chainId: leaf.chainId, updatedOutputAmount: leaf.updatedOutputAmount },
          rootBundleId,
          leaf.proof,
        ],
      }),
    });
    await ctx.repo.setSlowLeafState(ctx.fence, bundle.id, leaf.relayHash, "executed", receipt.transactionHash);
    await ctx.hooks.onStep?.("slow-leaf-executed", { bundleId: bundle.id, chainId, relayHash: leaf.relayHash });
  }
  return true;
}

/** Advances the open bundle as far as the chains allow now. */
export async function advanceBundle(ctx: BundleStepsContext, bundle: StoredBundle): Promise<AdvanceResult> {
  try {
    if (bundle.status === "built") {
      const stopped = await propose(ctx, bundle);
      if (stopped) return stopped;
    }
    if (!(await passLiveness(ctx, bundle))) return "waiting";
    await ctx.hooks.onStep?.("liveness-passed", { bundleId: bundle.id });
    await executePoolLeaves(ctx, bundle);
    const ids = await relayRoots(ctx, bundle, await ctx.repo.refundLeaves(bundle.id));
    if (!(await executeRefundLeaves(ctx, bundle, ids))) return "waiting";
    if (!(await executeSlowLeaves(ctx, bundle, ids))) return "waiting";
    await ctx.repo.markExecuted(ctx.fence, bundle.id);
    await ctx.hooks.onStep?.("executed", { bundleId: bundle.id });
    return "executed";
  } catch (error) {
    if (error instanceof StepRevertedError) await ctx.repo.setError(bundle.id, error.message);
    throw error;
  }
}
