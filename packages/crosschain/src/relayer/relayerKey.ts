import type { PlatformContext } from "@platform/kernel";
import type { Hex } from "viem";

/**
 * The key the relayer fills with: CROSSCHAIN_RELAYER_KEY, else, on the devnet only, its relayer account
 * (`PlatformContext.devnet`, a publicly known key the platform never puts into `config`).
 */
export function relayerKeyOf(context: Pick<PlatformContext, "config" | "devnet">): Hex | undefined {
  return (context.config.crosschainRelayerKey as Hex | undefined) ?? context.devnet?.relayerKey;
}
