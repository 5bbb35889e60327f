/**
 * The dataworker on the real contracts: each leaf kind settles on the devnet — a relayer is repaid on its
 * repayment chain (input less the LP fee), an expired deposit is refunded in full to its depositor on the
 * origin chain, a requested slow fill is executed for its recipient — and the HubPool's bond comes back.
 */
import { manifestToken } from "@platform/chains";
import { hexToBytea } from "@platform/kernel";
import { type Address, encodeFunctionData, erc20Abi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceTime, fillStatusOf, tokenBalance, waitFor } from "../relayer/testSupport.ts";
import { createDepositsService } from "../services/deposits.ts";
import { createBundlesRepository } from "../store/bundlesRepository.ts";
import { createDepositsRepository } from "../store/depositsRepository.ts";
import { multicallInstructions } from "../testing/multicallInstructions.ts";
import { fillDeposit, makeDeposit, spokeAbi } from "../testing/spokePoolActions.ts";
import { type SettlementHarness, startSettlementHarness } from "./testHarness.ts";

const HUB = 1;
const SPOKE = 10;
let h: SettlementHarness;

beforeAll(async () => {
  h = await startSettlementHarness([HUB, SPOKE]);
  h.startDataworker();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

/** Waits until the bundle that booked `relayHash` as `kind` is executed; returns its id. */
async function settled(kind: string, relayHash: `0x${string}`): Promise<number> {
  return waitFor(
    `${kind} settled`,
    async () => {
      await h.catchUp();
      const [row] = await h.db.query<{ bundle_id: string; status: string }>(
        `SELECT i.bundle_id, b.status FROM crosschain.bundle_items i JOIN crosschain.bundles b ON b.id = i.bundle_id
         WHERE i.kind = $1 AND i.relay_hash = $2`,
        [kind, hexToBytea(relayHash)],
      );
      return row?.status === "executed" ? Number(row.bundle_id) : undefined;
    },
    60_000,
  );
}

const bondBalance = async () =>
  h.f.publicClient(HUB).readContract({
    address: h.f.chain(HUB).contracts.bondToken,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [h.f.accounts.admin.address as Address],
  });

describe("dataworker", () => {
  it("repays a relayer on its repayment chain, less the LP fee", async () => {
    const { f } = h;
    const bondBefore = await bondBalance();
    const inputAmount = parseUnits("100", 6);
    const d = await makeDeposit(f, { origin: SPOKE, destination: HUB, inputAmount, outputAmount: parseUnits("99", 6) });
    await fillDeposit(f, d);
    const before = await tokenBalance(f, HUB, "USDC", f.accounts.relayer.address);
    const bundleId = await settled("fillRefund", d.internalRelayHash);
    const [item] = await h.db.query<{ amount: string; lp_fee: string; chain_id: string }>(
      "SELECT amount, lp_fee, chain_id FROM crosschain.bundle_items WHERE kind = 'fillRefund' AND relay_hash = $1",
      [hexToBytea(d.internalRelayHash)],
    );
    expect(Number(item?.chain_id)).toBe(HUB);
    expect(BigInt(item?.amount ?? 0) + BigInt(item?.lp_fee ?? 0)).toBe(inputAmount);
    expect(await tokenBalance(f, HUB, "USDC", f.accounts.relayer.address)).toBe(before + BigInt(item?.amount ?? 0));
    // The bond returns with the last pool leaf.
    expect(await bondBalance()).toBe(bondBefore);
    const leaves = await createBundlesRepository(h.db).poolLeaves(bundleId);
    expect(leaves.every((l) => l.execTx)).toBe(true);
  });

  it("refunds an expired deposit to its depositor on the origin chain", async () => {
    const { f } = h;
    const user = f.accounts.users[1] as (typeof f.accounts.users)[number];
    const inputAmount = parseUnits("25", 6);
    const before = await tokenBalance(f, SPOKE, "USDC", user.address);
    const d = await makeDeposit(f, {
      origin: SPOKE,
      destination: HUB,
      inputAmount,
      outputAmount: parseUnits("24", 6),
      user: 1,
      fillDeadlineOffset: 30,
    });
    expect(await tokenBalance(f, SPOKE, "USDC", user.address)).toBe(before - inputAmount);
    // Nobody fills; the destination's clock passes the deadline.
    await advanceTime(f, HUB, 60);
    await settled("expiredRefund", d.internalRelayHash);
    expect(await tokenBalance(f, SPOKE, "USDC", user.address)).toBe(before);
    const [refund] = await h.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM crosschain.settlement_events WHERE chain_id = $1 AND event_name = 'ExecutedRelayerRefundRoot'`,
      [SPOKE],
    );
    expect(Number(refund?.n)).toBeGreaterThan(0);
  });

  it("executes a requested slow fill for its recipient", async () => {
    const { f } = h;
    const recipient = f.accounts.users[2]?.address as Address;
    const inputAmount = parseUnits("10", 6);
    const d = await makeDeposit(f, {
      origin: SPOKE,
      destination: HUB,
      inputAmount,
      outputAmount: parseUnits("9.9", 6),
      recipient,
    });
    const wallet = f.walletClient(HUB, f.accounts.users[0] as (typeof f.accounts.users)[number]);
    await f.publicClient(HUB).waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: f.chain(HUB).contracts.spokePool,
        abi: spokeAbi,
        functionName: "requestSlowFill",
        args: [d.relayData],
      }),
    });
    const before = await tokenBalance(f, HUB, "USDC", recipient);
    await settled("slowFill", d.internalRelayHash);
    const [item] = await h.db.query<{ amount: string }>(
      "SELECT amount FROM crosschain.bundle_items WHERE kind = 'slowFill' AND relay_hash = $1",
      [hexToBytea(d.internalRelayHash)],
    );
    expect(await tokenBalance(f, HUB, "USDC", recipient)).toBe(before + BigInt(item?.amount ?? 0));
    expect(await fillStatusOf(f, HUB, d.relayHash)).toBe(2);
    expect(manifestToken(f.chain(HUB), "USDC").address).toBeTruthy();
  });

  it("keeps actionsSucceeded right for slow-filled deposits that carry messages", async () => {
    const { f } = h;
    const hub = f.chain(HUB);
    const fallback = f.accounts.users[2]?.address as Address;
    const usdc = manifestToken(hub, "USDC").address;
    // A call the handler cannot make (it holds far less): CallsFailed, the tokens go to the fallback.
    const failing = multicallInstructions(fallback, [
      {
        target: usdc,
        callData: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [fallback, 10n ** 30n] }),
        value: 0n,
      },
    ]);
    const deposits = createDepositsService(createDepositsRepository(h.db));
    for (const [message, succeeded] of [
      [failing, false],
      [multicallInstructions(fallback), true],
    ] as const) {
      const d = await makeDeposit(f, {
        origin: SPOKE,
        destination: HUB,
        inputAmount: parseUnits("5", 6),
        outputAmount: parseUnits("4.9", 6),
        recipient: hub.contracts.multicallHandler,
        message,
      });
      const wallet = f.walletClient(HUB, f.accounts.users[0] as (typeof f.accounts.users)[number]);
      await f.publicClient(HUB).waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address: hub.contracts.spokePool,
          abi: spokeAbi,
          functionName: "requestSlowFill",
          args: [d.relayData],
        }),
      });
      await settled("slowFill", d.internalRelayHash);
      const found = await waitFor(
        "the slow fill indexed",
        async () => {
          await h.catchUp();
          const r = await deposits.find({
            by: "depositId",
            originChainId: SPOKE,
            depositId: String(d.depositId),
            index: 0,
          });
          return r.status.status === "filled" ? r : undefined;
        },
        30_000,
      );
      expect(found.status.actionsSucceeded).toBe(succeeded);
      expect(found.status.fillTxnRef).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });
});
