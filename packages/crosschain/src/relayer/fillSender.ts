/**
 * Signs and broadcasts the relayer's transactions with explicit nonce, gas and fees (no node-side
 * estimation at send time), so the hash is known BEFORE the broadcast and can be recorded with the intent.
 */
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  maxUint256,
  type PrivateKeyAccount,
  type PublicClient,
} from "viem";
import type { SpokeChain } from "../deployments.ts";
import { fillCall } from "./chainReader.ts";
import type { Fees } from "./fees.ts";
import type { PendingDeposit } from "./types.ts";

export interface SignedTx {
  raw: Hex;
  hash: Hex;
  nonce: number;
  fees: Fees;
}

/** How a broadcast failed: decides what the worker does next. */
export type BroadcastError =
  /** The node has it already: it is broadcast. */
  | "known"
  /** The nonce is mined already (by this or another transaction of ours). */
  | "nonce-used"
  /** A transaction with this nonce is pending and pays at least as much. */
  | "underpriced"
  | "insufficient-funds"
  /** Anything else (timeout, connection): broadcast or not, unknown. */
  | "unknown";

export function classifyBroadcastError(error: unknown): BroadcastError {
  const text = String((error as { details?: string })?.details ?? "") + String(error);
  if (/already known|known transaction|already imported|AlreadyKnown/i.test(text)) return "known";
  if (/nonce too low|NonceTooLow|nonce has already been used|invalid nonce/i.test(text)) return "nonce-used";
  if (/underpriced|fee too low|replacement/i.test(text)) return "underpriced";
  if (/insufficient funds/i.test(text)) return "insufficient-funds";
  return "unknown";
}

export type FillSender = ReturnType<typeof createFillSender>;

export function createFillSender(chain: SpokeChain, client: PublicClient, account: PrivateKeyAccount) {
  async function sign(
    to: Address,
    data: Hex,
    nonce: number,
    gas: bigint,
    fees: Fees,
    legacy: boolean,
  ): Promise<SignedTx> {
    const base = { chainId: chain.chainId, to, data, nonce, gas, value: 0n };
    const raw = legacy
      ? await account.signTransaction({ ...base, type: "legacy", gasPrice: fees.maxFeePerGas })
      : await account.signTransaction({
          ...base,
          type: "eip1559",
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
    return { raw, hash: keccak256(raw), nonce, fees };
  }

  return {
    signFill: (deposit: PendingDeposit, nonce: number, gas: bigint, fees: Fees, legacy = false) =>
      sign(chain.spokePool, encodeFunctionData(fillCall(deposit, account.address) as never), nonce, gas, fees, legacy),

    /** approve(SpokePool, max) of an output token. */
    signApprove: (token: Address, nonce: number, fees: Fees, legacy = false) =>
      sign(
        token,
        encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [chain.spokePool, maxUint256] }),
        nonce,
        100_000n,
        fees,
        legacy,
      ),

    /** A 0-value transfer to ourselves: uses up a nonce whose fill was abandoned, so later ones can be mined. */
    signCancel: (nonce: number, fees: Fees, legacy = false) =>
      sign(account.address, "0x", nonce, 21_000n, fees, legacy),

    /** Broadcasts; throws `{ kind: BroadcastError, cause }` on failure ('known' is not a failure). */
    async broadcast(tx: SignedTx): Promise<void> {
      try {
        await client.sendRawTransaction({ serializedTransaction: tx.raw });
      } catch (cause) {
        const kind = classifyBroadcastError(cause);
        if (kind === "known") return;
        throw new BroadcastFailure(kind, cause);
      }
    },
  };
}

export class BroadcastFailure extends Error {
  constructor(
    readonly kind: BroadcastError,
    override readonly cause: unknown,
  ) {
    super(`broadcast failed (${kind}): ${shortError(cause)}`);
  }
}

/** First line of an error's message, for logs and `last_error`. */
export function shortError(error: unknown): string {
  const e = error as { shortMessage?: string; message?: string };
  return (e?.shortMessage ?? e?.message ?? String(error)).split("\n")[0]!.slice(0, 300);
}
