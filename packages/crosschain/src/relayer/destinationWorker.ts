/**
 * One destination chain's loop, for one tenure of the relayer's lease on the chain (index.ts): it runs until
 * `env.signal` aborts (the lease lost, or the relayer stopping). Each poll: reconcile the intents in flight
 * (see reconcile.ts), sync the nonce, then walk the pending deposits oldest first and fill those that pass
 * every check. One worker per chain, strictly sequential: there is never more than one send in progress per
 * key and chain. A tenure starts as a restart does (reconciliation first, the nonce read from the chain).
 */
import { LeaseLostError } from "@platform/kernel";
import type { Address, Hex } from "viem";
import { findToken } from "../deployments.ts";
import { bytes32ToAddress, isMessageEmpty } from "../domain/relayHash.ts";
import { FillStatus } from "./chainReader.ts";
import { type Check, checkEligibility, checkFunds, checkProfitability } from "./decision.ts";
import type { Fees } from "./fees.ts";
import { shortError } from "./fillSender.ts";
import { cursorOf, type DepositCursor, type Intent } from "./intentsStore.ts";
import { createReconciler } from "./reconcile.ts";
import { fillTerms, type PendingDeposit, type SkipReason } from "./types.ts";
import { gasLimit, sendFill, type WorkerEnv } from "./workerEnv.ts";

interface PollState {
  now: number;
  /** Output amounts of our unmined fills, by token. */
  reserved: Map<Address, bigint>;
  balances: Map<Address, bigint>;
  native?: bigint;
  nativeReserved: bigint;
  fees?: Fees;
}

type Outcome = "sent" | "skipped" | "halt";

export interface DestinationWorker {
  /** Polls now instead of at the next interval. */
  wake(): void;
  /** Settles once the signal aborted and the current poll finished, or when the lease turned out lost. */
  done: Promise<void>;
}

export function runDestinationWorker(env: WorkerEnv, pollMs: number): DestinationWorker {
  const { store, reader, chainStatus, status, signal } = env;
  const chainId = env.chain.chainId;
  const reconciler = createReconciler(env);
  const lastSkip = new Map<Hex, SkipReason>();
  const knownFilled = new Set<Hex>();
  const approvals = new Map<Address, Hex>();
  /** Pending deposits are walked a page per poll; a cycle ends on a short page, then starts over. */
  let cursor: DepositCursor | undefined;
  let cycleSeen = new Set<Hex>();
  let wakeUp: (() => void) | undefined;
  let wakeRequested = false;

  function skip(d: PendingDeposit, c: Extract<Check, { ok: false }>): Outcome {
    if (lastSkip.get(d.internalRelayHash) !== c.reason) {
      lastSkip.set(d.internalRelayHash, c.reason);
      status.skips[c.reason] = (status.skips[c.reason] ?? 0) + 1;
      env.log.info(
        { relayHash: d.internalRelayHash, originChainId: d.originChainId, depositId: `${d.depositId}`, ...c },
        "deposit skipped for now",
      );
    }
    return "skipped";
  }

  async function tokenBalance(s: PollState, token: Address): Promise<bigint> {
    let b = s.balances.get(token);
    if (b === undefined) {
      b = await reader.tokenBalance(token);
      s.balances.set(token, b);
    }
    return b;
  }

  /** Makes sure the SpokePool may pull `needed` of `token`; "halt" ends the poll while an approval is pending. */
  async function ensureAllowance(s: PollState, token: Address, needed: bigint): Promise<"ok" | "halt"> {
    const previous = approvals.get(token);
    if (previous) {
      const state = await reader.transactionState(previous);
      if (state && state !== "mined") return "halt";
      approvals.delete(token);
    }
    if ((await reader.allowance(token)) >= needed) return "ok";
    s.fees ??= await reader.marketFees();
    // An approval is not recorded (nothing fences it): at least never send one after the lease was lost.
    if (signal.aborted) return "halt";
    const nonce = env.nonces.reserve();
    const tx = await env.sender.signApprove(token, nonce, s.fees, reader.legacyFees);
    try {
      await env.sender.broadcast(tx);
    } catch (error) {
      env.nonces.release(nonce);
      env.log.warn({ token, err: shortError(error) }, "approval not accepted");
      return "halt";
    }
    env.nonces.holdOther(nonce);
    approvals.set(token, tx.hash);
    env.log.info({ token, nonce, txHash: tx.hash }, "approving the SpokePool for an output token");
    try {
      const receipt = await reader.client.waitForTransactionReceipt({
        hash: tx.hash,
        timeout: env.tuning.approvalTimeoutMs,
        pollingInterval: Math.min(pollMs, 1000),
      });
      approvals.delete(token);
      return receipt.status === "success" ? "ok" : "halt";
    } catch {
      return "halt";
    }
  }

  async function tryFill(d: PendingDeposit, s: PollState): Promise<Outcome> {
    if (knownFilled.has(d.internalRelayHash)) return "skipped";
    const eligible = checkEligibility({ ...env, deposit: d, now: s.now, relayer: env.address });
    if (!eligible.ok) return skip(d, eligible);
    const rd = d.relayData;
    const { outputAmount, message } = fillTerms(d);
    const tokenIn = findToken(env.chains, d.originChainId, bytes32ToAddress(rd.inputToken))!;
    const tokenOut = findToken(env.chains, d.destinationChainId, bytes32ToAddress(rd.outputToken))!;
    /** Whether the fee covers the fill: the cached plain-fill gas, or `gasUnits` simulated for this fill. */
    const coversCost = async (gasUnits?: bigint): Promise<Check> => {
      let fillCost: bigint | undefined;
      try {
        fillCost = await env.estimateFillCost?.(d, gasUnits);
      } catch (error) {
        return { ok: false, reason: "unprofitable", detail: `fill cost unknown: ${shortError(error)}` };
      }
      return checkProfitability({
        inputAmount: rd.inputAmount,
        inputDecimals: tokenIn.decimals,
        outputAmount,
        outputDecimals: tokenOut.decimals,
        fillCost: fillCost ?? 0n,
        marginBps: env.marginBps,
      });
    };
    const profit = await coversCost();
    if (!profit.ok) return skip(d, profit);
    if ((await reader.fillStatus(d.relayHash)) === FillStatus.Filled) {
      knownFilled.add(d.internalRelayHash);
      return skip(d, { ok: false, reason: "filled-elsewhere", detail: "fillStatuses says Filled" });
    }
    const token = tokenOut.address;
    const balance = await tokenBalance(s, token);
    const reserved = s.reserved.get(token) ?? 0n;
    const funds = { outputAmount, tokenBalance: balance, tokenReserved: reserved };
    const tokenFunds = checkFunds({ ...funds, nativeBalance: 0n, nativeNeeded: 0n });
    if (!tokenFunds.ok) return skip(d, tokenFunds);
    if ((await ensureAllowance(s, token, reserved + outputAmount)) === "halt") return "halt";
    let gas: bigint;
    let simulatedGas: bigint;
    try {
      simulatedGas = await reader.estimateFillGas(d);
      gas = gasLimit(env, simulatedGas);
    } catch (error) {
      return skip(d, { ok: false, reason: "simulation-failed", detail: shortError(error) });
    }
    if (!isMessageEmpty(message) && env.estimateFillCost) {
      // A message's calls (a destination swap, actions) cost gas the cached plain-fill estimate leaves out:
      // the fill must pay for the gas it really takes.
      const again = await coversCost(simulatedGas);
      if (!again.ok) return skip(d, again);
    }
    s.fees ??= await reader.marketFees();
    s.native ??= await reader.nativeBalance();
    const nativeNeeded = gas * s.fees.maxFeePerGas;
    const allFunds = checkFunds({ ...funds, nativeBalance: s.native - s.nativeReserved, nativeNeeded });
    if (!allFunds.ok) return skip(d, allFunds);

    // Decided: nonce, signed transaction, intent row ('sending'), broadcast, 'sent'.
    const nonce = env.nonces.reserve();
    const result = await sendFill(env, d, nonce, gas, s.fees, (hash) => store.beginIntent(d, nonce, hash));
    if (result === "not-recorded") {
      env.nonces.release(nonce);
      return "skipped";
    }
    if (result === "broadcast-failed") return "halt";
    s.reserved.set(token, reserved + outputAmount);
    s.nativeReserved += nativeNeeded;
    lastSkip.delete(d.internalRelayHash);
    return "sent";
  }

  function reservedByToken(active: Intent[]): Map<Address, bigint> {
    const reserved = new Map<Address, bigint>();
    for (const i of active) {
      if (!i.deposit) continue;
      const token = findToken(env.chains, chainId, bytes32ToAddress(i.deposit.relayData.outputToken))?.address;
      if (token) reserved.set(token, (reserved.get(token) ?? 0n) + fillTerms(i.deposit).outputAmount);
    }
    return reserved;
  }

  async function poll(): Promise<void> {
    const ctx = await reader.context();
    let active = await store.activeIntents(chainId);
    for (const intent of active) {
      if (signal.aborted) return;
      await reconciler.reconcile(intent, ctx, active);
    }
    if (active.length) active = await store.activeIntents(chainId);
    env.nonces.sync(
      { pending: ctx.pendingNonce, latest: ctx.latestNonce },
      active.map((i) => i.nonce),
    );
    chainStatus.nextNonce = env.nonces.next;
    chainStatus.inFlight = active.length;
    const deposits = await store.pendingDeposits({
      destinationChainId: chainId,
      now: ctx.now,
      limit: env.tuning.batchSize,
      maxAttempts: env.tuning.maxAttempts,
      retryAfterSec: env.tuning.retryAfterSec,
      after: cursor,
    });
    const s: PollState = { now: ctx.now, reserved: reservedByToken(active), balances: new Map(), nativeReserved: 0n };
    let sent = 0;
    let done = 0;
    for (const d of deposits) {
      if (signal.aborted) break;
      cycleSeen.add(d.internalRelayHash);
      const outcome = await tryFill(d, s);
      if (outcome === "halt") break;
      if (outcome === "sent") sent++;
      done++;
    }
    if (done === deposits.length && deposits.length < env.tuning.batchSize) {
      // End of a cycle: forget what we noted about deposits that are no longer pending.
      for (const h of lastSkip.keys()) if (!cycleSeen.has(h)) lastSkip.delete(h);
      for (const h of knownFilled) if (!cycleSeen.has(h)) knownFilled.delete(h);
      cycleSeen = new Set();
      cursor = undefined;
    } else if (done > 0) {
      cursor = cursorOf(deposits[done - 1]!);
    }
    chainStatus.nextNonce = env.nonces.next;
    chainStatus.inFlight = active.length + sent;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (wakeRequested || signal.aborted) {
        wakeRequested = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  const done = (async () => {
    let lastError: string | null = null;
    while (!signal.aborted) {
      try {
        await poll();
        chainStatus.state = "running";
        chainStatus.lastError = lastError = null;
      } catch (error) {
        // A fenced write refused: another instance holds the lease now. End this tenure at once.
        if (error instanceof LeaseLostError) {
          env.log.warn("relayer lease lost during a poll: standing by");
          break;
        }
        const message = shortError(error);
        chainStatus.state = "error";
        chainStatus.lastError = message;
        if (message !== lastError) env.log.warn({ err: message }, "relayer poll failed; retrying");
        lastError = message;
      }
      chainStatus.lastPollAt = Date.now();
      if (!signal.aborted) await sleep(pollMs);
    }
  })();

  return {
    wake() {
      if (wakeUp) wakeUp();
      else wakeRequested = true;
    },
    done,
  };
}
