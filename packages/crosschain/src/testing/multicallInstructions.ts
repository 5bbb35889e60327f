import type { Address, Hex } from "viem";
import { encodeMulticallMessage, type HandlerCall } from "../domain/swap/embeddedActions.ts";

export type { HandlerCall };

/**
 * A deposit `message` for Across' MulticallHandler (its `Instructions`): the calls it makes with the filled
 * tokens, and who gets what is left. No calls: everything goes to `fallbackRecipient`.
 */
export function multicallInstructions(fallbackRecipient: Address, calls: readonly HandlerCall[] = []): Hex {
  return encodeMulticallMessage(calls, fallbackRecipient);
}
