/**
 * The deposit message a swap quote sends to Across' MulticallHandler on the destination: what the handler
 * does with the filled tokens, in this order:
 *
 * 1. the destination swap (Uniswap V2 router), its input being the handler's whole balance of the bridged
 *    token at fill time (`makeCallWithBalance`), so a fill of more than the minimum swaps all of it;
 * 2. the app fee, a transfer of the output token to the app fee recipient;
 * 3. the caller's embedded actions;
 * 4. what is left of the output token, to the recipient.
 *
 * The handler sends whatever else remains of the bridged token to the fallback recipient (an exact-output
 * swap's unspent input), and everything to it when any call fails (a swap below its minimum, a failing action):
 * that is the destination refund, and `CallsFailed` is what `/deposit/status` reports as
 * `actionsSucceeded: false`.
 */
import type { Address, Hex } from "viem";
import {
  drainLeftoverTokensCall,
  encodeMulticallMessage,
  type HandlerCall,
  makeCallWithBalanceCall,
} from "./embeddedActions.ts";
import {
  APPROVE_AMOUNT_OFFSET,
  encodeApprove,
  encodeRouterSwap,
  encodeTransfer,
  routerArgOffsets,
} from "./swapCalldata.ts";

/** The destination swap of a quote, as the handler runs it. */
export interface DestinationSwapCall {
  router: Address;
  /** The source whose router runs the path. */
  source: string;
  /** Each hop's pool fee (millionths). */
  fees: readonly number[];
  kind: "exactInput" | "exactOutput";
  /** Token path (the bridged token first). */
  path: readonly Address[];
  /** exactInput: the least output; exactOutput: the exact output. */
  amount: bigint;
  deadline: number;
  /** The path ends in the wrapped native token and the recipient gets the native coin. */
  nativeOut: boolean;
}

export interface DestinationMessageParameters {
  multicallHandler: Address;
  bridgedToken: Address;
  /** The token the recipient ends with (the bridged token when there is no swap). */
  outputToken: Address;
  recipient: Address;
  fallbackRecipient: Address;
  swap?: DestinationSwapCall;
  appFee?: { amount: bigint; recipient: Address };
  actions?: readonly HandlerCall[];
}

/** Whether a transfer needs a destination message at all (else it is a plain deposit to the recipient). */
export const needsDestinationMessage = (p: Pick<DestinationMessageParameters, "swap" | "appFee" | "actions">) =>
  p.swap !== undefined || (p.appFee !== undefined && p.appFee.amount > 0n) || (p.actions?.length ?? 0) > 0;

/** The handler's calls (see the module comment). */
export function destinationCalls(p: DestinationMessageParameters): HandlerCall[] {
  const calls: HandlerCall[] = [];
  const fee = p.appFee && p.appFee.amount > 0n ? p.appFee : undefined;
  const actions = p.actions ?? [];
  // The output stays with the handler when something after the swap needs it; otherwise it goes straight out.
  const handlerKeepsOutput = !p.swap || fee !== undefined || actions.length > 0;
  if (p.swap) {
    const s = p.swap;
    calls.push(
      makeCallWithBalanceCall(p.multicallHandler, p.bridgedToken, encodeApprove(s.router, 0n), 0n, [
        { token: p.bridgedToken, offset: APPROVE_AMOUNT_OFFSET },
      ]),
    );
    const swapData = encodeRouterSwap({
      source: s.source,
      fees: s.fees,
      kind: s.kind,
      // exactInput: (balance, least output); exactOutput: (exact output, balance as the most input).
      amount: s.kind === "exactInput" ? 0n : s.amount,
      limit: s.kind === "exactInput" ? s.amount : 0n,
      path: s.path,
      to: handlerKeepsOutput ? p.multicallHandler : p.recipient,
      deadline: s.deadline,
      nativeOut: s.nativeOut,
    });
    const offsets = routerArgOffsets(s.source);
    const offset = s.kind === "exactInput" ? offsets.amount : offsets.limit;
    calls.push(
      makeCallWithBalanceCall(p.multicallHandler, s.router, swapData, 0n, [{ token: p.bridgedToken, offset }]),
    );
  }
  if (fee) calls.push({ target: p.outputToken, callData: encodeTransfer(fee.recipient, fee.amount), value: 0n });
  calls.push(...actions);
  if (handlerKeepsOutput) calls.push(drainLeftoverTokensCall(p.multicallHandler, p.outputToken, p.recipient));
  return calls;
}

/** The encoded message (`Instructions`) for the handler. */
export function destinationMessage(p: DestinationMessageParameters): Hex {
  return encodeMulticallMessage(destinationCalls(p), p.fallbackRecipient);
}
