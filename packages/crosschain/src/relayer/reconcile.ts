/**
 * Reconciliation of the intents in 'sending'/'sent' with the chain, at the start of every poll (so after a
 * restart it runs before anything is sent). Every fill transaction of an intent uses the intent's nonce,
 * so at most one of them can ever be mined. For each intent, by nonce:
 *
 * 1. a receipt for one of its hashes → 'confirmed' (or 'failed' when reverted);
 * 2. one of its hashes is pending in the node → wait; once stuck, replaced (same nonce, fees +12.5%);
 * 3. its nonce is used (mined count read AFTER the lookups above) but no hash of ours was mined (a
 *    replacement whose hash this process lost) → the FilledRelay (indexer's `crosschain.fills`, else the
 *    logs) tells whether the fill is ours ('confirmed'), another relayer's ('skipped'), or missing
 *    ('failed': retried later);
 * 4. otherwise the nonce is unused and the node knows none of its transactions (never broadcast: killed
 *    before/while sending, or dropped) → re-check the relay (fillStatuses, deadline, exclusivity,
 *    simulation) and re-send it with the same nonce, or abandon it: a relay found Filled at this point
 *    was filled by someone else (our nonce for it is unused). An abandoned nonce that later transactions
 *    wait behind is used up by a 0-value transfer to ourselves.
 */
import type { Hex } from "viem";
import { type ChainContext, FillStatus, isRelayer } from "./chainReader.ts";
import { type Check, checkEligibility } from "./decision.ts";
import { bumpFees, type Fees, maxFees } from "./fees.ts";
import { BroadcastFailure, shortError } from "./fillSender.ts";
import type { Intent } from "./intentsStore.ts";
import type { PendingDeposit } from "./types.ts";
import { gasLimit, sendFill, type Tracked, type WorkerEnv } from "./workerEnv.ts";

export function createReconciler(env: WorkerEnv) {
  const { store, reader, status } = env;
  const logOf = (i: Intent) =>
    env.log.child({ relayHash: i.internalRelayHash, originChainId: i.originChainId, depositId: `${i.depositId}` });

  async function confirmed(i: Intent, txHash: Hex) {
    env.tracked.delete(i.internalRelayHash);
    if (await store.markConfirmed(i.internalRelayHash, txHash)) {
      status.confirmed++;
      logOf(i).info({ nonce: i.nonce, txHash }, "fill confirmed");
    }
  }

  async function failed(i: Intent, error: string, txHash?: Hex) {
    env.tracked.delete(i.internalRelayHash);
    if (await store.markFailed(i.internalRelayHash, error, txHash)) {
      status.failed++;
      logOf(i).warn({ nonce: i.nonce, txHash, error }, "fill failed");
    }
  }

  async function findFill(d: PendingDeposit, ctx: ChainContext) {
    const recorded = await store.recordedFill(d.internalRelayHash);
    if (recorded) return recorded;
    const lookback = BigInt(env.tuning.fillLogLookbackBlocks);
    return reader.findFillLog(d, ctx.head > lookback ? ctx.head - lookback : 0n);
  }

  /** Whether the relay can still be filled by us now; the simulated gas when it can. */
  async function fillable(
    d: PendingDeposit,
    ctx: ChainContext,
  ): Promise<Extract<Check, { ok: false }> | { ok: true; gas: bigint }> {
    if ((await reader.fillStatus(d.relayHash)) === FillStatus.Filled) {
      return { ok: false, reason: "filled-elsewhere", detail: "fillStatuses says Filled" };
    }
    const eligible = checkEligibility({ ...env, deposit: d, now: ctx.now, relayer: env.address });
    if (!eligible.ok) return eligible as Extract<Check, { ok: false }>;
    try {
      return { ok: true, gas: gasLimit(env, await reader.estimateFillGas(d)) };
    } catch (error) {
      return { ok: false, reason: "simulation-failed", detail: shortError(error) };
    }
  }

  /** Gives up an intent whose transaction was never broadcast; uses its nonce up when later ones need it. */
  async function abandon(i: Intent, t: Tracked, ctx: ChainContext, all: Intent[], final: boolean, reason: string) {
    const later = all.some((o) => o.nonce > i.nonce) || ctx.pendingNonce > i.nonce;
    let note = "";
    if (later) {
      const market = await reader.marketFees();
      const fees = t.fees
        ? bumpFees(t.fees, maxFees(market, t.minFees ?? market))
        : maxFees(market, t.minFees ?? market);
      const tx = await env.sender.signCancel(i.nonce, fees, reader.legacyFees);
      try {
        await env.sender.broadcast(tx);
      } catch (error) {
        // Still live: "nonce-used" means something took the nonce after our check (maybe our own fill, which
        // the next poll's step 3 will find); anything else leaves the gap to be closed next poll.
        if (error instanceof BroadcastFailure && error.kind === "underpriced") t.minFees = bumpFees(fees, fees);
        logOf(i).warn({ nonce: i.nonce, err: shortError(error) }, "could not use up the nonce; reconciling next poll");
        return;
      }
      env.nonces.holdOther(i.nonce);
      note = `; nonce ${i.nonce} used up by ${tx.hash}`;
    }
    if (final) {
      env.tracked.delete(i.internalRelayHash);
      if (await store.markSkipped(i.internalRelayHash, reason + note)) logOf(i).info({ reason }, "intent dropped");
    } else {
      await failed(i, `abandoned before broadcast: ${reason}${note}`);
    }
  }

  async function resend(i: Intent, t: Tracked, ctx: ChainContext, all: Intent[]) {
    const d = i.deposit;
    if (!d) return abandon(i, t, ctx, all, false, "deposit no longer indexed (origin reorg?)");
    const check = await fillable(d, ctx);
    if (!check.ok)
      return abandon(i, t, ctx, all, check.reason === "filled-elsewhere", `${check.reason}: ${check.detail}`);
    const market = await reader.marketFees();
    const fees = t.minFees ? maxFees(market, t.minFees) : market;
    logOf(i).info({ nonce: i.nonce, state: i.state }, "fill not known to the node: sending it again (same nonce)");
    await sendFill(env, d, i.nonce, check.gas, fees, (hash) => store.setTxHash(i.internalRelayHash, hash, "sending"));
  }

  async function replace(i: Intent, t: Tracked, pendingFees: Fees) {
    const d = i.deposit;
    if (!d) return; // a vanished deposit: let the pending fill be (it reverts, or is cancelled if it is ever dropped)
    const fees = bumpFees(
      maxFees(t.fees ?? pendingFees, pendingFees),
      maxFees(await reader.marketFees(), t.minFees ?? pendingFees),
    );
    const gas = t.gas ?? gasLimit(env, await reader.estimateFillGas(d).catch(() => 160_000n));
    const tx = await env.sender.signFill(d, i.nonce, gas, fees, reader.legacyFees);
    await store.setTxHash(i.internalRelayHash, tx.hash, "sent");
    Object.assign(t, { hashes: [...t.hashes, tx.hash], fees, gas, lastSendMs: Date.now() });
    try {
      await env.sender.broadcast(tx);
      status.replaced++;
      logOf(i).info({ nonce: i.nonce, txHash: tx.hash, maxFeePerGas: `${fees.maxFeePerGas}` }, "stuck fill replaced");
    } catch (error) {
      if (error instanceof BroadcastFailure && error.kind === "underpriced") t.minFees = bumpFees(fees, fees);
      logOf(i).warn({ nonce: i.nonce, err: shortError(error) }, "replacement not accepted");
    }
  }

  async function settle(i: Intent, hash: Hex, success: boolean) {
    if (success) return confirmed(i, hash);
    const filled = i.deposit && (await reader.fillStatus(i.deposit.relayHash)) === FillStatus.Filled;
    return failed(i, `fill reverted${filled ? " (relay already filled by another relayer)" : ""}`, hash);
  }

  /** Brings one intent in line with the chain (see the module comment). */
  async function reconcile(i: Intent, ctx: ChainContext, all: Intent[]): Promise<void> {
    let t = env.tracked.get(i.internalRelayHash);
    if (!t) {
      t = { hashes: [], lastSendMs: Date.now() - i.ageSec * 1000 };
      env.tracked.set(i.internalRelayHash, t);
    }
    const hashes = [...new Set([...(i.txHash ? [i.txHash] : []), ...t.hashes])];
    let pending: Fees | undefined;
    for (const hash of hashes) {
      const receipt = await reader.receipt(hash);
      if (receipt) return settle(i, hash, receipt.status === "success");
      const state = await reader.transactionState(hash);
      if (state === "mined") {
        const late = await reader.receipt(hash);
        if (late) return settle(i, hash, late.status === "success");
      } else if (state) {
        pending = state.fees;
      }
    }
    if (pending) {
      if (Date.now() - t.lastSendMs >= env.tuning.stuckAfterMs) await replace(i, t, pending);
      return;
    }
    // Read after the lookups: if the nonce is still unused now, none of our transactions for it was mined.
    if (i.nonce < (await reader.latestNonce())) {
      const fill = i.deposit ? await findFill(i.deposit, ctx) : undefined;
      if (fill && isRelayer(fill.relayer, env.address)) return confirmed(i, fill.txHash);
      if (fill) {
        env.tracked.delete(i.internalRelayHash);
        await store.markSkipped(i.internalRelayHash, `filled by ${fill.relayer} in ${fill.txHash}`);
        return;
      }
      return failed(i, `nonce ${i.nonce} was used by another transaction; no fill of ours found`);
    }
    await resend(i, t, ctx, all);
  }

  return { reconcile };
}
