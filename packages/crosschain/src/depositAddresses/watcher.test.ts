/**
 * Counterfactual deposit addresses on a two-chain devnet: `/swap/counterfactual` issues an address, a user sends
 * USDC to it, the watcher deposits from it (the beacon signer's authorisation), our relayer fills, and
 * `/deposit/status?depositAddress=…&index=…` reports each deposit; funds that cannot be deposited within the
 * fee cap go back to the refund address; an execution interrupted after it was recorded is completed by the
 * next watcher with the same transaction, never a second deposit.
 */
import { manifestToken } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import type { BackgroundJob } from "@platform/kernel";
import { type Address, erc20Abi, type Hex, parseEventLogs, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QuoteTestService, startQuoteTestService } from "../quotes/testing.ts";
import { waitFor } from "../relayer/testSupport.ts";
import { createSuggestedFeesService } from "../services/suggestedFees.ts";
import { spokeAbi } from "../testing/spokePoolActions.ts";
import { startDepositAddressWatcher } from "./watcher.ts";

const A = 8453;
const B = 10;
let t: QuoteTestService;
let jobs: BackgroundJob;

beforeAll(async () => {
  const devnet = await startDevnetFixture({ chainIds: [A, B] });
  t = await startQuoteTestService({
    chainIds: [A, B],
    devnet,
    config: { crosschainPollMs: 100, crosschainDepositAddressKey: devnet.accounts.signer.privateKey },
  });
  jobs = await t.service.instance.startJobs();
});

afterAll(async () => {
  await jobs?.stop();
  await t?.close();
  await t?.devnet.stop();
});

const usdc = (chainId: number) => manifestToken(t.devnet.chain(chainId), "USDC").address;
const balanceOf = (chainId: number, who: Address) =>
  t.devnet
    .publicClient(chainId)
    .readContract({ address: usdc(chainId), abi: erc20Abi, functionName: "balanceOf", args: [who] });

async function send(to: Address, amount: bigint) {
  const user = t.devnet.accounts.users[0] as never;
  const wallet = t.devnet.walletClient(A, user);
  const hash = await wallet.writeContract({
    address: usdc(A),
    abi: erc20Abi,
    functionName: "transfer",
    args: [to, amount],
  });
  await t.devnet.publicClient(A).waitForTransactionReceipt({ hash });
}

const issue = (recipient: Address, refundAddress: Address) =>
  t.get("/swap/counterfactual", {
    useDepositAddress: true,
    inputToken: usdc(A),
    outputToken: usdc(B),
    originChainId: A,
    destinationChainId: B,
    amount: "100000000",
    recipient,
    refundAddress,
  });

describe("/swap/counterfactual", () => {
  it("issues a deterministic address with the transfer's quote, and refuses what addresses do not carry", async () => {
    const recipient = t.devnet.accounts.users[2]?.address as Address;
    const first = await issue(recipient, recipient);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ crossSwapType: "bridgeableToBridgeable", inputAmount: "100000000" });
    expect(first.body.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.body.swapTx).toBeUndefined();
    expect((await issue(recipient, recipient)).body.depositAddress).toBe(first.body.depositAddress);
    const other = "0x00000000000000000000000000000000000a0b0c" as Address;
    expect((await issue(other, other)).body.depositAddress).not.toBe(first.body.depositAddress);

    const dai = manifestToken(t.devnet.chain(B), "DAI").address;
    const swap = await t.get("/swap/counterfactual", {
      useDepositAddress: true,
      inputToken: usdc(A),
      outputToken: dai,
      originChainId: A,
      destinationChainId: B,
      amount: "100000000",
      recipient,
    });
    expect(swap).toMatchObject({ status: 400, body: { code: "INVALID_PARAM", param: "outputToken" } });
    const flag = await t.get("/swap/counterfactual", {
      useDepositAddress: false,
      inputToken: usdc(A),
      outputToken: usdc(B),
      originChainId: A,
      destinationChainId: B,
      amount: "1",
      recipient,
    });
    expect(flag).toMatchObject({ status: 400, body: { code: "MISSING_PARAM", param: "useDepositAddress" } });
  });

  it("deposits what reaches the address, each deposit visible by its index, and the recipient is paid", async () => {
    const recipient = "0x00000000000000000000000000000000000d0e01" as Address;
    const { body } = await issue(recipient, recipient);
    const address = body.depositAddress as Address;
    for (const [index, amount] of [parseUnits("100", 6), parseUnits("60", 6)].entries()) {
      const before = await balanceOf(B, recipient);
      await send(address, amount);
      const status = await waitFor(
        `deposit ${index} from the address filled`,
        async () => {
          const r = await t.get("/deposit/status", { depositAddress: address, index });
          return r.body.status === "filled" ? r.body : undefined;
        },
        20_000,
      );
      expect(status.fillTxnRef).toMatch(/^0x/);
      const received = (await balanceOf(B, recipient)) - before;
      expect(received).toBeGreaterThan((amount * 95n) / 100n); // the fees: gas (fixed) plus capital and LP
      expect(received).toBeLessThan(amount);
      expect(await balanceOf(A, address)).toBe(0n);
    }
  });

  it("returns funds it cannot deposit within the fee cap to the refund address", async () => {
    const recipient = "0x00000000000000000000000000000000000d0e02" as Address;
    const refundAddress = "0x00000000000000000000000000000000000d0e03" as Address;
    const { body } = await issue(recipient, refundAddress);
    await send(body.depositAddress, 1_000n); // 0.001 USDC: the fees are more than that
    await waitFor("the refund", async () => (await balanceOf(A, refundAddress)) === 1_000n, 20_000);
    expect(await balanceOf(A, body.depositAddress)).toBe(0n);
    expect((await t.get("/deposit/status", { depositAddress: body.depositAddress, index: 0 })).status).toBe(404);
  });
});

describe("the watcher, interrupted", () => {
  it("after a crash between recording and broadcasting, the next watcher sends the same transaction: one deposit", async () => {
    await jobs.stop(); // the service's own watcher holds the chains' leases
    try {
      const recipient = "0x00000000000000000000000000000000000d0e04" as Address;
      const { body } = await issue(recipient, recipient);
      const address = body.depositAddress as Address;
      await send(address, parseUnits("25", 6));
      const options = {
        db: t.service.context.db,
        chains: t.quotes.chains,
        privateKey: t.devnet.accounts.signer.privateKey as Hex,
        suggestedFees: createSuggestedFeesService(t.quotes),
        logger: t.service.context.logger,
        pollMs: 50,
        leaseTtlSec: 1,
      };
      let crashed = false;
      const first = startDepositAddressWatcher({
        ...options,
        hooks: {
          onStep(step) {
            if (step === "recorded" && !crashed) {
              crashed = true;
              throw new Error("simulated crash after the execution was recorded");
            }
          },
        },
      });
      await waitFor("the crash", () => crashed, 10_000);
      await first.stop();
      expect(await balanceOf(A, address)).toBe(parseUnits("25", 6)); // nothing broadcast yet
      const second = startDepositAddressWatcher(options);
      await waitFor("the deposit", async () => (await balanceOf(A, address)) === 0n, 20_000);
      await second.stop();
      const logs = await t.devnet
        .publicClient(A)
        .getLogs({ address: t.devnet.chain(A).contracts.spokePool, fromBlock: 0n });
      const fromAddress = parseEventLogs({ abi: spokeAbi as never, logs, eventName: "FundsDeposited" as never }).filter(
        (l) =>
          (l as unknown as { args: { depositor: Hex } }).args.depositor
            .toLowerCase()
            .endsWith(address.slice(2).toLowerCase()),
      );
      expect(fromAddress).toHaveLength(1);
    } finally {
      jobs = await t.service.instance.startJobs();
    }
  });
});
