/**
 * What one destination chain's worker shares between its parts (scan, reconcile, send), and the send
 * sequence of a fill: sign (hash known) → record the hash → broadcast → record 'sent'.
 */
import type { Logger } from "@platform/kernel";
import type { Address, Hex } from "viem";
import type { SpokeChain } from "../deployments.ts";
import type { ChainReader } from "./chainReader.ts";
import type { Route } from "./decision.ts";
import { bumpFees, type Fees } from "./fees.ts";
import { BroadcastFailure, type FillSender, shortError } from "./fillSender.ts";
import type { IntentsStore } from "./intentsStore.ts";
import type { NonceManager } from "./nonceManager.ts";
import type { ChainRelayerStatus, FillStep, PendingDeposit, RelayerHooks, RelayerStatus } from "./types.ts";

/** Knobs with defaults (see README); tests shorten the delays. */
export interface RelayerTuning {
  /** A fill pending longer than this is re-sent with the same nonce and +12.5% fees (default 30 000). */
  stuckAfterMs?: number;
  /** Attempts (intent rows) per deposit before it is left alone (default 3). */
  maxAttempts?: number;
  /** Rest between two attempts of a deposit (default 30 s). */
  retryAfterSec?: number;
  /** Pending deposits looked at per poll and chain (default 50). */
  batchSize?: number;
  /** How far back FilledRelay logs are searched for a fill whose hash we lost (default 100 000 blocks). */
  fillLogLookbackBlocks?: number;
  /** Gas limit = estimate × this / 100 (default 125). */
  gasLimitPercent?: number;
  /** How long a poll waits for an approval to be mined (default 60 000). */
  approvalTimeoutMs?: number;
  /**
   * Seconds the relayer's lease on a destination chain (kernel lease `crosschain.relayer:<chain>:<address>`)
   * lasts after its last renewal: how soon a standby instance takes over from a killed holder (default 30;
   * the platform passes CROSSCHAIN_RELAYER_LEASE_SEC). Fractions allowed (tests).
   */
  leaseTtlSec?: number;
}

export const DEFAULT_TUNING: Required<RelayerTuning> = {
  stuckAfterMs: 30_000,
  maxAttempts: 3,
  retryAfterSec: 30,
  batchSize: 50,
  fillLogLookbackBlocks: 100_000,
  gasLimitPercent: 125,
  approvalTimeoutMs: 60_000,
  leaseTtlSec: 30,
};

/** What this process knows of an intent beyond its row: every hash sent for it, the last fees. */
export interface Tracked {
  hashes: Hex[];
  fees?: Fees;
  /** Floor for the next send after an "underpriced" refusal. */
  minFees?: Fees;
  gas?: bigint;
  lastSendMs: number;
}

export interface WorkerEnv {
  chain: SpokeChain;
  /** Aborted when this tenure of the chain's lease ends (lost, or the relayer stopping). */
  signal: AbortSignal;
  chains: readonly SpokeChain[];
  address: Address;
  store: IntentsStore;
  reader: ChainReader;
  sender: FillSender;
  nonces: NonceManager;
  log: Logger;
  status: RelayerStatus;
  chainStatus: ChainRelayerStatus;
  hooks: RelayerHooks;
  tuning: Required<RelayerTuning>;
  marginBps: number;
  isRouteEnabled(route: Route): boolean;
  estimateFillCost?(deposit: PendingDeposit, gasUnits?: bigint): Promise<bigint | undefined>;
  tracked: Map<Hex, Tracked>;
}

export type SendResult = "sent" | "not-recorded" | "broadcast-failed";

/**
 * Sends a fill with `nonce`. `record(hash)` writes the hash to the intent row before the broadcast (the
 * intent itself for a first send); after the broadcast the row becomes 'sent'. A failed broadcast leaves
 * the row 'sending' for the next poll's reconciliation, which knows how to tell the cases apart.
 */
export async function sendFill(
  env: WorkerEnv,
  deposit: PendingDeposit,
  nonce: number,
  gas: bigint,
  fees: Fees,
  record: (txHash: Hex) => Promise<boolean>,
): Promise<SendResult> {
  const h = deposit.internalRelayHash;
  const tx = await env.sender.signFill(deposit, nonce, gas, fees, env.reader.legacyFees);
  if (!(await record(tx.hash))) return "not-recorded";
  const t = env.tracked.get(h) ?? { hashes: [], lastSendMs: 0 };
  env.tracked.set(h, { ...t, hashes: [...t.hashes, tx.hash], fees, gas, lastSendMs: Date.now() });
  const info = { relayHash: deposit.relayHash, nonce, txHash: tx.hash };
  const log = env.log.child({ relayHash: h, originChainId: deposit.originChainId, depositId: `${deposit.depositId}` });
  log.info({ nonce, txHash: tx.hash }, "fill intent recorded (sending)");
  await step(env, "intent-written", info);
  try {
    await env.sender.broadcast(tx);
  } catch (error) {
    const kind = error instanceof BroadcastFailure ? error.kind : "unknown";
    if (kind === "underpriced") env.tracked.set(h, { ...env.tracked.get(h)!, minFees: bumpFees(fees, fees) });
    log.warn({ nonce, txHash: tx.hash, kind, err: shortError(error) }, "fill broadcast failed; reconciling next poll");
    return "broadcast-failed";
  }
  env.status.sent++;
  await step(env, "broadcast", info);
  await env.store.markSent(h, tx.hash);
  log.info({ nonce, txHash: tx.hash }, "fill sent");
  await step(env, "sent-recorded", info);
  return "sent";
}

async function step(env: WorkerEnv, s: FillStep, info: { relayHash: Hex; nonce: number; txHash: Hex }) {
  await env.hooks.onStep?.(s, info);
}

export const gasLimit = (env: WorkerEnv, estimate: bigint) => (estimate * BigInt(env.tuning.gasLimitPercent)) / 100n;
