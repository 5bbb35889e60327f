import type { PlatformContext } from "@platform/kernel";
import type { Hex } from "viem";

/**
 * The trusted proposer's key: CROSSCHAIN_SETTLEMENT_KEY, else, on the devnet only, its admin account (a
 * publicly known key that owns the devnet's HubPool and spokes, so it can also play the bridges).
 */
export function settlementKeyOf(context: Pick<PlatformContext, "config" | "devnet">): Hex | undefined {
  return (context.config.crosschainSettlementKey as Hex | undefined) ?? context.devnet?.settlementKey;
}
