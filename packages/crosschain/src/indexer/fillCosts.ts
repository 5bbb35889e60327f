/**
 * The fill-cost pass: what `/deposits` shows of a fill beyond its event — the gas it cost (`gasUsed ×
 * effectiveGasPrice` of its receipt; receipts are not in the logs) and the USD prices of the input, the
 * output and the destination's gas coin, with the bridge fee in USD, and of an origin swap's token with its
 * cost in USD — recorded once per fill, behind the
 * event indexer (a poll later), so a record does not move with later prices. The prices are the chain-state
 * cache's (`prices.usd`), the ones the fee quote's USD amounts use, as they stand when the pass reads the
 * fill: within a poll of the fill while the indexer follows the head. A fill waits until both chains' state
 * has been read; an unknown price is recorded as null.
 *
 * Kill-safe and reorg-safe without a checkpoint of its own: an unread fill is one with `gas_fee IS NULL`; a
 * receipt from another block than the one the indexer stored (a reorg in progress) leaves the fill for the
 * indexer's rollback to settle, and the save only touches a fill still stored from the receipt's block.
 */
import type { BlockFetcher } from "@platform/chains";
import type { Logger } from "@platform/kernel";
import { findToken, type SpokeChain } from "../deployments.ts";
import { bridgeFeeUsd, fillGasFee, swapFeeUsd } from "../domain/fillCosts.ts";
import type { ChainPrices } from "../quotes/prices.ts";
import type { FillCosts, FillCostsStore, UnreadFill } from "../store/fillCostsStore.ts";

/** Fills read per round. */
const ROUND = 500;
/** Receipts per JSON-RPC batch request. */
const BATCH = 100;

interface Receipt {
  transactionHash: string;
  blockHash: string;
  gasUsed: string;
  effectiveGasPrice: string;
}

export interface CreateFillCostPassParameters {
  /** The destination chain whose fills this pass reads. */
  chainId: number;
  chains: readonly SpokeChain[];
  store: FillCostsStore;
  fetcher: BlockFetcher;
  /** The chain-state cache's prices of a chain; undefined until its state has been read. */
  pricesOf: (chainId: number) => ChainPrices | undefined;
  logger: Logger;
}

async function receiptsOf(fetcher: BlockFetcher, fills: readonly UnreadFill[]): Promise<Map<string, Receipt>> {
  const hashes = [...new Set(fills.map((f) => f.txHash.toLowerCase()))];
  const out = new Map<string, Receipt>();
  for (let i = 0; i < hashes.length; i += BATCH) {
    const receipts = await fetcher.batch<Receipt | null>(
      hashes.slice(i, i + BATCH).map((hash) => ({ method: "eth_getTransactionReceipt", params: [hash] })),
    );
    for (const r of receipts) if (r) out.set(r.transactionHash.toLowerCase(), r);
  }
  return out;
}

/** One pass per destination chain; `step()` reads one round and returns true when nothing is left to read now. */
export function createFillCostPass(p: CreateFillCostPassParameters) {
  const priceOf = (prices: ChainPrices, chainId: number, address: string) => {
    const token = findToken(p.chains, chainId, address);
    const usd = prices.usd.get(address.toLowerCase());
    return token && usd !== undefined ? { decimals: token.decimals, priceUsd: usd } : undefined;
  };

  return {
    async step(): Promise<boolean> {
      const fills = await p.store.unread(p.chainId, ROUND);
      if (fills.length === 0) return true;
      const destination = p.pricesOf(p.chainId);
      if (!destination) return true;
      const receipts = await receiptsOf(p.fetcher, fills);
      const costs: FillCosts[] = [];
      let waiting = false;
      for (const fill of fills) {
        const receipt = receipts.get(fill.txHash.toLowerCase());
        const origin = p.pricesOf(fill.originChainId);
        if (!receipt || receipt.blockHash.toLowerCase() !== fill.blockHash.toLowerCase() || !origin) {
          p.logger.debug(
            { chainId: p.chainId, txHash: fill.txHash },
            "fill moved (reorg?) or prices not read: costs wait",
          );
          waiting = true;
          continue;
        }
        const input = priceOf(origin, fill.originChainId, fill.inputToken);
        const output = priceOf(destination, p.chainId, fill.outputToken);
        const swapped = fill.originSwap && priceOf(origin, fill.originChainId, fill.originSwap.swapToken);
        costs.push({
          relayHash: fill.relayHash,
          txHash: fill.txHash,
          blockHash: fill.blockHash,
          gasFee: fillGasFee({
            gasUsed: BigInt(receipt.gasUsed),
            effectiveGasPrice: BigInt(receipt.effectiveGasPrice),
          }),
          gasTokenPriceUsd: destination.nativeUsd ?? null,
          inputPriceUsd: input?.priceUsd ?? null,
          outputPriceUsd: output?.priceUsd ?? null,
          bridgeFeeUsd:
            input && output
              ? bridgeFeeUsd({ amount: fill.inputAmount, ...input }, { amount: fill.outputAmount, ...output })
              : null,
          swapTokenPriceUsd: swapped ? swapped.priceUsd : null,
          swapFeeUsd:
            swapped && input && fill.originSwap
              ? swapFeeUsd(
                  { amount: fill.originSwap.swapTokenAmount, ...swapped },
                  { amount: fill.inputAmount, ...input },
                )
              : null,
        });
      }
      await p.store.save(p.chainId, costs);
      return waiting || fills.length < ROUND;
    },
  };
}
