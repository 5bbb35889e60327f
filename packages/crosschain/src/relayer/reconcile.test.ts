/**
 * Reconciliation decisions against a scripted chain (no devnet): which intent ends how, and that every
 * transaction sent for an intent carries the intent's nonce and is recorded before it is broadcast.
 */
import { createLogger } from "@platform/kernel";
import { type Hex, keccak256, stringToHex, zeroHash } from "viem";
import { describe, expect, it } from "vitest";
import { addressToBytes32 } from "../domain/relayHash.ts";
import { offlineSpokeChain } from "../testing/offlineSpokeChain.ts";
import type { ChainContext } from "./chainReader.ts";
import type { Fees } from "./fees.ts";
import { BroadcastFailure, type SignedTx } from "./fillSender.ts";
import type { Intent } from "./intentsStore.ts";
import { createNonceManager } from "./nonceManager.ts";
import { createReconciler } from "./reconcile.ts";
import type { PendingDeposit, RelayerStatus } from "./types.ts";
import { DEFAULT_TUNING, type WorkerEnv } from "./workerEnv.ts";

const ME = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Hex;
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as Hex;
const USDC = "0x1000000000000000000000000000000000000001" as Hex;
const MARKET: Fees = { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n };
const chain = (chainId: number) => offlineSpokeChain(chainId, [{ symbol: "USDC", address: USDC, decimals: 6 }]);

const deposit = (fillDeadline = 5000): PendingDeposit => ({
  originChainId: 8453,
  destinationChainId: 10,
  depositId: 7n,
  internalRelayHash: keccak256(stringToHex("internal")),
  relayHash: keccak256(stringToHex("onchain")),
  quoteTimestamp: 900,
  blockTimestamp: 900,
  relayData: {
    depositor: addressToBytes32(OTHER),
    recipient: addressToBytes32(OTHER),
    exclusiveRelayer: zeroHash,
    inputToken: addressToBytes32(USDC),
    outputToken: addressToBytes32(USDC),
    inputAmount: 100n,
    outputAmount: 99n,
    originChainId: 8453n,
    depositId: 7n,
    fillDeadline,
    exclusivityDeadline: 0,
    message: "0x",
  },
});

const intent = (over: Partial<Intent> = {}): Intent => ({
  internalRelayHash: deposit().internalRelayHash,
  destinationChainId: 10,
  originChainId: 8453,
  depositId: 7n,
  state: "sent",
  nonce: 5,
  txHash: keccak256(stringToHex("first")),
  attempts: 1,
  lastError: null,
  ageSec: 0,
  deposit: deposit(),
  ...over,
});

const CTX: ChainContext = { now: 1000, head: 100n, latestNonce: 5, pendingNonce: 5 };

/** A scripted chain and a call log ("store:…" and "broadcast:…" in the order they happened). */
function world() {
  const chain10 = {
    receipts: new Map<Hex, "success" | "reverted">(),
    pool: new Map<Hex, Fees>(),
    latestNonce: 5,
    fillStatus: 0,
    fillLog: undefined as { txHash: Hex; relayer: Hex } | undefined,
    broadcastError: undefined as BroadcastFailure | undefined,
  };
  const calls: string[] = [];
  const sent: (SignedTx & { kind: string })[] = [];
  const held: number[] = [];
  const sign =
    (kind: string) =>
    async (...args: unknown[]) => {
      const nonce = args.find((a) => typeof a === "number") as number;
      const fees = args.find((a) => typeof a === "object" && a !== null && "maxFeePerGas" in a) as Fees;
      const hash = keccak256(stringToHex(`${kind}-${nonce}-${fees.maxFeePerGas}-${sent.length}-${calls.length}`));
      return { raw: hash, hash, nonce, fees, kind };
    };
  const nonces = createNonceManager();
  const status: RelayerStatus = {
    address: ME,
    running: true,
    chains: [],
    sent: 0,
    replaced: 0,
    confirmed: 0,
    failed: 0,
    skips: {},
  };
  const env = {
    chain: chain(10),
    chains: [chain(8453), chain(10)],
    address: ME,
    log: createLogger({ level: "silent" }),
    status,
    chainStatus: { chainId: 10, state: "running", nextNonce: null, inFlight: 0, lastPollAt: null, lastError: null },
    hooks: {},
    tuning: { ...DEFAULT_TUNING, stuckAfterMs: 1000 },
    marginBps: 0,
    isRouteEnabled: () => true,
    tracked: new Map(),
    nonces: { ...nonces, holdOther: (n: number) => held.push(n) },
    reader: {
      legacyFees: false,
      receipt: async (h: Hex) => (chain10.receipts.has(h) ? { status: chain10.receipts.get(h) } : undefined),
      transactionState: async (h: Hex) => (chain10.pool.has(h) ? { fees: chain10.pool.get(h) } : undefined),
      latestNonce: async () => chain10.latestNonce,
      fillStatus: async () => chain10.fillStatus,
      estimateFillGas: async () => 100_000n,
      marketFees: async () => MARKET,
      findFillLog: async () => chain10.fillLog,
    },
    sender: {
      signFill: sign("fill"),
      signCancel: sign("cancel"),
      async broadcast(tx: SignedTx & { kind: string }) {
        if (chain10.broadcastError) throw chain10.broadcastError;
        calls.push(`broadcast:${tx.kind}:${tx.nonce}:${tx.hash}`);
        sent.push(tx);
      },
    },
    store: new Proxy(
      {},
      {
        get:
          (_t, name: string) =>
          async (...args: unknown[]) => {
            if (name === "recordedFill") return undefined;
            calls.push(`store:${name}:${args.slice(1).join(":")}`);
            return true;
          },
      },
    ),
  } as unknown as WorkerEnv;
  return { env, chain: chain10, calls, sent, held, status, reconcile: createReconciler(env).reconcile };
}

describe("reconcile", () => {
  it("confirms an intent whose transaction was mined, and fails a reverted one with the reason", async () => {
    const w = world();
    const i = intent();
    w.chain.receipts.set(i.txHash!, "success");
    await w.reconcile(i, CTX, [i]);
    expect(w.calls).toEqual([`store:markConfirmed:${i.txHash}`]);

    const v = world();
    v.chain.receipts.set(i.txHash!, "reverted");
    v.chain.fillStatus = 2;
    await v.reconcile(i, CTX, [i]);
    expect(v.calls).toEqual([`store:markFailed:fill reverted (relay already filled by another relayer):${i.txHash}`]);
  });

  it("waits for a pending fill, then replaces it once stuck: same nonce, +12.5% fees, recorded before broadcast", async () => {
    const w = world();
    const pendingFees = { maxFeePerGas: 2000n, maxPriorityFeePerGas: 200n };
    const i = intent({ ageSec: 0 });
    w.chain.pool.set(i.txHash!, pendingFees);
    await w.reconcile(i, CTX, [i]);
    expect(w.calls).toEqual([]);

    // As found after a restart: sent 2 s ago (stuck after 1 s).
    w.env.tracked.clear();
    const stuck = intent({ ageSec: 2 });
    await w.reconcile(stuck, CTX, [stuck]);
    expect(w.sent).toHaveLength(1);
    const tx = w.sent[0]!;
    expect(tx).toMatchObject({ kind: "fill", nonce: 5, fees: { maxFeePerGas: 2250n, maxPriorityFeePerGas: 225n } });
    expect(w.calls).toEqual([`store:setTxHash:${tx.hash}:sent`, `broadcast:fill:5:${tx.hash}`]);
    expect(w.status.replaced).toBe(1);
  });

  it("after losing a replacement's hash, finds its fill by the used nonce and the FilledRelay log", async () => {
    const i = intent();
    const ours = world();
    ours.chain.latestNonce = 6;
    ours.chain.fillLog = { txHash: keccak256(stringToHex("replacement")), relayer: addressToBytes32(ME) };
    await ours.reconcile(i, CTX, [i]);
    expect(ours.calls).toEqual([`store:markConfirmed:${ours.chain.fillLog.txHash}`]);

    const theirs = world();
    theirs.chain.latestNonce = 6;
    theirs.chain.fillLog = { txHash: keccak256(stringToHex("other")), relayer: addressToBytes32(OTHER) };
    await theirs.reconcile(i, CTX, [i]);
    expect(theirs.calls[0]).toMatch(/^store:markSkipped:filled by 0x/);

    const none = world();
    none.chain.latestNonce = 6;
    await none.reconcile(i, CTX, [i]);
    expect(none.calls).toEqual(["store:markFailed:nonce 5 was used by another transaction; no fill of ours found:"]);
    expect(none.sent).toEqual([]);
  });

  it("re-sends a fill the node never saw (killed before the broadcast) with the same nonce", async () => {
    const w = world();
    const i = intent({ state: "sending" });
    await w.reconcile(i, CTX, [i]);
    expect(w.sent).toHaveLength(1);
    const tx = w.sent[0]!;
    expect(tx).toMatchObject({ kind: "fill", nonce: 5, fees: MARKET });
    expect(w.calls).toEqual([
      `store:setTxHash:${tx.hash}:sending`,
      `broadcast:fill:5:${tx.hash}`,
      `store:markSent:${tx.hash}`,
    ]);
  });

  it("drops a never-broadcast intent whose relay someone else filled, using up its nonce when later ones wait", async () => {
    const w = world();
    w.chain.fillStatus = 2;
    const i = intent({ state: "sending" });
    const later = intent({ nonce: 6, internalRelayHash: keccak256(stringToHex("later")) });
    await w.reconcile(i, CTX, [i, later]);
    expect(w.sent).toEqual([expect.objectContaining({ kind: "cancel", nonce: 5 })]);
    expect(w.held).toEqual([5]);
    expect(w.calls[1]).toMatch(/^store:markSkipped:filled-elsewhere: .*; nonce 5 used up by 0x/);
  });

  it("fails a never-broadcast intent that expired meanwhile, without a transaction when no nonce waits behind it", async () => {
    const w = world();
    const i = intent({ state: "sending", deposit: deposit(999) });
    await w.reconcile(i, CTX, [i]);
    expect(w.sent).toEqual([]);
    expect(w.calls).toEqual([expect.stringMatching(/^store:markFailed:abandoned before broadcast: expired: /)]);
  });

  it("keeps an intent live when its cancel is refused (the nonce gap must be closed first)", async () => {
    const w = world();
    w.chain.fillStatus = 2;
    w.chain.broadcastError = new BroadcastFailure("unknown", new Error("timeout"));
    const i = intent({ state: "sending" });
    await w.reconcile(i, { ...CTX, pendingNonce: 7 }, [i]);
    expect(w.calls).toEqual([]);
    expect(w.held).toEqual([]);
  });
});
