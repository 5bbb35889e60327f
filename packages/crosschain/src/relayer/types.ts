import type { Hex } from "viem";
import type { RelayData } from "../domain/relayHash.ts";

/** A deposit of `crosschain.deposits` with no fill yet, as the relayer sees it. */
export interface PendingDeposit {
  originChainId: number;
  destinationChainId: number;
  depositId: bigint;
  /** The indexer's relay hash (`crosschain.deposits.relay_hash`, with messageHash): key of `relayer_fills`. */
  internalRelayHash: Hex;
  /** The on-chain relay hash (`fillStatuses` key, full message). */
  relayHash: Hex;
  /** Relay data exactly as `fillRelay` takes it (bytes32 addresses). */
  relayData: RelayData;
  quoteTimestamp: number;
  blockTimestamp: number;
  /** The depositor's signed speed-up with the lowest output, when it lowers the output (then it is filled with). */
  speedUp?: SpeedUp;
}

/** New terms of a deposit from `RequestedSpeedUpDeposit`, applied with `fillRelayWithUpdatedDeposit`. */
export interface SpeedUp {
  updatedOutputAmount: bigint;
  updatedRecipient: Hex;
  updatedMessage: Hex;
  depositorSignature: Hex;
}

/** What a fill of `d` delivers: the speed-up's terms when there is one, else the deposit's. */
export function fillTerms(d: PendingDeposit): { outputAmount: bigint; recipient: Hex; message: Hex } {
  return d.speedUp
    ? {
        outputAmount: d.speedUp.updatedOutputAmount,
        recipient: d.speedUp.updatedRecipient,
        message: d.speedUp.updatedMessage,
      }
    : { outputAmount: d.relayData.outputAmount, recipient: d.relayData.recipient, message: d.relayData.message };
}

/** Why a deposit was not filled (this poll); every reason except `filled-elsewhere` is re-checked later. */
export type SkipReason =
  | "route-disabled"
  | "unknown-token"
  | "different-tokens"
  | "non-evm-address"
  | "expired"
  | "exclusive"
  | "unprofitable"
  | "insufficient-balance"
  | "insufficient-gas"
  | "filled-elsewhere"
  | "simulation-failed";

export interface ChainRelayerStatus {
  chainId: number;
  /** "standby": another instance holds this key's lease on the chain (`crosschain.relayer:<chain>:<address>`). */
  state: "starting" | "running" | "standby" | "error" | "stopped";
  /** The nonce the next fill will use. */
  nextNonce: number | null;
  /** Intents in 'sending' or 'sent'. */
  inFlight: number;
  lastPollAt: number | null;
  lastError: string | null;
}

/** Live counters of a running relayer (the object is updated in place). */
export interface RelayerStatus {
  address: Hex;
  running: boolean;
  chains: ChainRelayerStatus[];
  /** Fill transactions broadcast (first sends and re-sends), replacements, confirmations, failures. */
  sent: number;
  replaced: number;
  confirmed: number;
  failed: number;
  /** Skips by reason, counted per deposit and reason change (not per poll). */
  skips: Partial<Record<SkipReason, number>>;
}

/** The points of a fill where a crash matters; tests stall (and kill the process) there. */
export type FillStep = "intent-written" | "broadcast" | "sent-recorded";

export interface RelayerHooks {
  /** Called after each step of a fill (first sends and re-sends); awaited. */
  onStep?(step: FillStep, info: { relayHash: Hex; nonce: number; txHash: Hex }): void | Promise<void>;
}
