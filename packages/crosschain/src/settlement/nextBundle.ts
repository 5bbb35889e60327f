/**
 * Building the next bundle: ranges from the previous proposal's end blocks to each chain's indexed tip
 * (less the finality buffer), the LP fee of every deposit a fill or slow fill settles (priced once, from
 * the HubPool reserves the dataworker recorded), the items the ledger has not booked yet, then the leaves and
 * trees (buildBundle) — written with the items in one transaction. Nothing is built when nothing is owed.
 */
import type { Database, Logger } from "@platform/kernel";
import { type Address, getAddress, type Hex, parseAbi } from "viem";
import { type L1TokenRateConfig, parseL1TokenConfig } from "../domain/fees/lpFee.ts";
import type { BundleRange, BundlesRepository, Fence } from "../store/bundlesRepository.ts";
import { buildBundle } from "./buildBundle.ts";
import { bookItems, loadBundleItems, loadUnpricedDeposits } from "./bundleData.ts";
import { ensureDepositLpFees, recordHubSnapshot } from "./lpFees.ts";
import { bundleRanges, type RangeInput, rangesAreEmpty } from "./ranges.ts";
import { hubPoolAbi, type SettlementChains } from "./settlementChains.ts";

export interface BuildContext {
  db: Database;
  chains: SettlementChains;
  repo: BundlesRepository;
  fence: Fence;
  endBlockBuffer: number;
  maxRefundLeafSize: number;
  maxPoolLeafSize: number;
  logger: Logger;
}

const configStoreAbi = parseAbi(["function l1TokenConfig(address) view returns (string)"]);
const rateConfigs = new WeakMap<SettlementChains, Map<string, L1TokenRateConfig | undefined>>();

/**
 * Records the HubPool's reserves of every token at the hub's head (the LP fee of a deposit is priced from
 * the reserves at its quote time, and the devnet keeps no old state to ask), and the config store's rate
 * models with them.
 */
export async function recordHubReserves(ctx: BuildContext): Promise<void> {
  const { chains } = ctx;
  const hub = chains.chain(chains.hubChainId);
  const client = chains.clientOf(hub.chainId);
  const block = await client.getBlock();
  const reserves = [];
  const configs = new Map<string, L1TokenRateConfig | undefined>();
  for (const t of hub.tokens) {
    const pool = (await client.readContract({
      address: chains.hubPool,
      abi: hubPoolAbi,
      functionName: "pooledTokens",
      args: [t.address],
      blockNumber: block.number,
    })) as readonly [Address, boolean, number, bigint, bigint, bigint];
    if (!pool[1]) continue;
    reserves.push({
      l1Token: t.address,
      utilizedReserves: pool[3],
      liquidReserves: pool[4],
      undistributedLpFees: pool[5],
    });
    const store = hub.contracts.configStore;
    const json = store
      ? await client
          .readContract({ address: store, abi: configStoreAbi, functionName: "l1TokenConfig", args: [t.address] })
          .catch(() => "")
      : "";
    configs.set(t.address.toLowerCase(), json ? parseL1TokenConfig(json) : undefined);
  }
  rateConfigs.set(chains, configs);
  await recordHubSnapshot(ctx.db, { blockNumber: block.number, blockTimestamp: block.timestamp, reserves });
}

/** Builds and stores the next bundle; its id, or undefined when there is nothing to settle yet. */
export async function buildNextBundle(ctx: BuildContext): Promise<number | undefined> {
  const { chains, repo } = ctx;
  const previous = await repo.lastProposed();
  const checkpoints = new Map((await repo.indexerCheckpoints()).map((c) => [c.chainId, c]));
  const inputs: RangeInput[] = [];
  for (const c of chains.chains) {
    const checkpoint = checkpoints.get(c.chainId);
    if (!checkpoint) {
      ctx.logger.info({ chainId: c.chainId }, "no bundle yet: the chain is not indexed");
      return undefined;
    }
    const previousEnd = previous?.ranges.find((r) => r.chainId === c.chainId)?.end ?? checkpoint.startBlock - 1n;
    inputs.push({
      chainId: c.chainId,
      previousEnd,
      indexedTip: checkpoint.nextBlock - 1n,
      head: await chains.clientOf(c.chainId).getBlockNumber(),
      buffer: BigInt(ctx.endBlockBuffer),
    });
  }
  const blockRanges = bundleRanges(inputs);
  if (rangesAreEmpty(blockRanges)) return undefined;
  // A chain with no block indexed yet (next_block = start_block = 0 on the devnet) would end at block −1,
  // which `proposeRootBundle` cannot encode: the bundle would stay unproposable. Wait for a first block.
  const unready = blockRanges.find((r) => r.end < 0n);
  if (unready) {
    ctx.logger.info({ chainId: unready.chainId }, "no bundle yet: the chain has no indexed block");
    return undefined;
  }
  const ranges: BundleRange[] = [];
  for (const r of blockRanges) {
    const block = await chains.clientOf(r.chainId).getBlock({ blockNumber: r.end });
    ranges.push({ ...r, endHash: block.hash, endTimestamp: block.timestamp });
  }
  const endTimestamps = new Map(ranges.map((r) => [r.chainId, r.endTimestamp]));
  const configs = rateConfigs.get(chains);
  const fees = await ensureDepositLpFees(ctx.db, await loadUnpricedDeposits(ctx.db, { ranges, endTimestamps }), {
    tokenMap: chains.tokens,
    hubChainId: chains.hubChainId,
    rateConfigOf: (l1) => configs?.get(l1.toLowerCase()),
    decimalsOf: (chainId, token) =>
      chains.chains.find((c) => c.chainId === chainId)?.tokens.find((t) => getAddress(t.address) === getAddress(token))
        ?.decimals,
  });
  const items = await loadBundleItems(ctx.db, {
    ranges,
    endTimestamps,
    tokenMap: chains.tokens,
    routedChains: new Set(chains.chains.map((c) => c.chainId)),
    lpFeeOf: (h) => fees.get(h.toLowerCase() as Hex),
  });
  if (items.length === 0) return undefined;
  const built = buildBundle({
    items,
    previousRunningBalances: await repo.runningBalances(),
    tokenMap: chains.tokens,
    maxRefundLeafSize: ctx.maxRefundLeafSize,
    maxPoolLeafSize: ctx.maxPoolLeafSize,
    chainIds: chains.chains.map((c) => c.chainId),
  });
  const slowHashes = new Map(
    items.filter((i) => i.kind === "slowFill").map((i) => [`${i.originChainId}:${i.depositId}`, i.relayHash]),
  );
  const slowRelayHashes = built.slowRelay.leaves.map(
    (l) => slowHashes.get(`${l.relayData.originChainId}:${l.relayData.depositId}`) as Hex,
  );
  const id = await repo.insertBuilt(
    ctx.fence,
    ranges,
    built,
    (tx, bundleId) => bookItems(tx, BigInt(bundleId), items),
    slowRelayHashes,
  );
  const count = (kind: string) => items.filter((i) => i.kind === kind).length;
  ctx.logger.info(
    {
      bundleId: id,
      deposits: count("deposit"),
      fillRefunds: count("fillRefund"),
      expiredRefunds: count("expiredRefund"),
      slowFills: count("slowFill"),
      poolLeaves: built.poolRebalance.leaves.length,
      refundLeaves: built.relayerRefund.leaves.length,
    },
    "bundle built",
  );
  return id;
}
