/**
 * What the operator sees of settlement: each bundle's ranges, roots, proposal and challenge end, what it paid
 * (per kind, chain and token) and each leaf's execution. Amounts are decimal strings of raw token units.
 */
import type { BundlesRepository, StoredBundle } from "../store/bundlesRepository.ts";

export interface BundleSummary {
  id: number;
  status: StoredBundle["status"];
  ranges: { chainId: number; startBlock: string; endBlock: string; endBlockTimestamp: number }[];
  poolRebalanceRoot: string;
  relayerRefundRoot: string;
  slowRelayRoot: string;
  proposeTxnRef: string | null;
  challengePeriodEndTimestamp: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BundleDetail extends BundleSummary {
  totals: { kind: string; chainId: number; token: string; count: number; amount: string; lpFees: string }[];
  poolRebalanceLeaves: {
    leafId: number;
    chainId: number;
    l1Tokens: string[];
    netSendAmounts: string[];
    runningBalances: string[];
    bundleLpFees: string[];
    executionTxnRef: string | null;
  }[];
  relayerRefundLeaves: {
    leafId: number;
    chainId: number;
    l2Token: string;
    amountToReturn: string;
    refundAddresses: string[];
    refundAmounts: string[];
    rootBundleId: number | null;
    executionTxnRef: string | null;
  }[];
  slowRelayLeaves: {
    relayHash: string;
    chainId: number;
    updatedOutputAmount: string;
    state: string;
    executionTxnRef: string | null;
  }[];
}

const str = (xs: readonly bigint[]) => xs.map((x) => x.toString());

function summary(b: StoredBundle): BundleSummary {
  return {
    id: b.id,
    status: b.status,
    ranges: b.ranges.map((r) => ({
      chainId: r.chainId,
      startBlock: r.start.toString(),
      endBlock: r.end.toString(),
      endBlockTimestamp: Number(r.endTimestamp),
    })),
    poolRebalanceRoot: b.poolRebalanceRoot,
    relayerRefundRoot: b.relayerRefundRoot,
    slowRelayRoot: b.slowRelayRoot,
    proposeTxnRef: b.proposeTx,
    challengePeriodEndTimestamp: b.challengeEnd === null ? null : Number(b.challengeEnd),
    error: b.error,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}

export function createSettlementService(repo: BundlesRepository) {
  return {
    async list(limit: number, before?: number): Promise<BundleSummary[]> {
      return (await repo.list(limit, before)).map(summary);
    },

    async get(id: number): Promise<BundleDetail | undefined> {
      const b = await repo.get(id);
      if (!b) return undefined;
      const [totals, pool, refunds, slow] = [
        await repo.totals(id),
        await repo.poolLeaves(id),
        await repo.refundLeaves(id),
        await repo.slowLeaves(id),
      ];
      return {
        ...summary(b),
        totals: totals.map((t) => ({
          kind: t.kind,
          chainId: t.chainId,
          token: t.l2Token,
          count: t.count,
          amount: t.amount.toString(),
          lpFees: t.lpFees.toString(),
        })),
        poolRebalanceLeaves: pool.map((l) => ({
          leafId: l.leafId,
          chainId: Number(l.chainId),
          l1Tokens: l.l1Tokens,
          netSendAmounts: str(l.netSendAmounts),
          runningBalances: str(l.runningBalances),
          bundleLpFees: str(l.bundleLpFees),
          executionTxnRef: l.execTx,
        })),
        relayerRefundLeaves: refunds.map((l) => ({
          leafId: l.leafId,
          chainId: Number(l.chainId),
          l2Token: l.l2TokenAddress,
          amountToReturn: l.amountToReturn.toString(),
          refundAddresses: l.refundAddresses,
          refundAmounts: str(l.refundAmounts),
          rootBundleId: l.spokeRootBundleId,
          executionTxnRef: l.execTx,
        })),
        slowRelayLeaves: slow.map((l) => ({
          relayHash: l.relayHash,
          chainId: Number(l.chainId),
          updatedOutputAmount: l.updatedOutputAmount.toString(),
          state: l.state,
          executionTxnRef: l.execTx,
        })),
      };
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
