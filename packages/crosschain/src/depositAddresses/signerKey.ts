import type { PlatformContext } from "@platform/kernel";
import type { Hex } from "viem";

/**
 * The key that authorises and sends deposits from counterfactual deposit addresses (the CounterfactualBeacon's
 * `signer`): CROSSCHAIN_DEPOSIT_ADDRESS_KEY, else, on the devnet only, its signer account (a publicly known key
 * carried in `PlatformContext.devnet`, never in `config`).
 */
export function depositAddressKeyOf(context: Pick<PlatformContext, "config" | "devnet">): Hex | undefined {
  return (context.config.crosschainDepositAddressKey as Hex | undefined) ?? context.devnet?.depositAddressSignerKey;
}
