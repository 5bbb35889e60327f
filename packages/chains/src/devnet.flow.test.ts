import {
  type Address,
  encodeAbiParameters,
  type Hex,
  keccak256,
  pad,
  parseAbiParameters,
  parseEventLogs,
  parseUnits,
} from "viem";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "./artifacts.ts";
import { INITIAL_DEPOSIT_ID } from "./deploy.ts";
import { manifestToken } from "./manifest.ts";
import { useDevnet } from "./testing/devnetFixture.ts";

// Real Across SpokePool deposit on one chain and fill on another, and a real Uniswap V2 swap,
// against anvil nodes started by the test fixture.
const ORIGIN = 8453;
const DESTINATION = 10;
const devnet = useDevnet({ chainIds: [ORIGIN, DESTINATION] });

const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;
const erc20Abi = loadArtifact("ExpandedERC20").abi;
const routerAbi = loadArtifact("UniswapV2Router02").abi;
const b32 = (a: Address): Hex => pad(a, { size: 32 });

async function balanceOf(chainId: number, token: Address, who: Address): Promise<bigint> {
  return (await devnet()
    .publicClient(chainId)
    .readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] })) as bigint;
}

/**
 * Why a mined transaction reverted, for a failing assertion's message: its gas (limit and used, an
 * estimate that fell short shows as used = limit) and the revert reason of the same call replayed on
 * the state before its block.
 */
async function whyReverted(chainId: number, hash: Hex): Promise<string> {
  const client = devnet().publicClient(chainId);
  const tx = await client.getTransaction({ hash });
  const receipt = await client.getTransactionReceipt({ hash });
  const replay = await client
    .call({ account: tx.from, to: tx.to, data: tx.input, gas: tx.gas, blockNumber: receipt.blockNumber - 1n })
    .then(
      () => "the replay succeeds",
      (error: Error) => (error as { shortMessage?: string }).shortMessage ?? error.message,
    );
  return `reverted: gas limit ${tx.gas}, used ${receipt.gasUsed}, block ${receipt.blockNumber}; replay: ${replay}`;
}

describe("devnet: Across SpokePool", () => {
  it("is configured as the issue asks (buffers, owner, wrapped native, runtime chain id)", async () => {
    const f = devnet();
    for (const chainId of [ORIGIN, DESTINATION]) {
      const c = f.chain(chainId);
      const read = (functionName: string) =>
        f.publicClient(chainId).readContract({ address: c.contracts.spokePool, abi: spokeAbi, functionName });
      expect(await read("depositQuoteTimeBuffer")).toBe(3600);
      expect(await read("fillDeadlineBuffer")).toBe(21600);
      expect(await read("owner")).toBe(f.accounts.admin.address);
      expect(await read("wrappedNativeToken")).toBe(c.contracts.weth9);
      expect(await read("chainId")).toBe(BigInt(chainId));
    }
  });

  it("deposits on the origin chain and fills on the destination chain", async () => {
    const f = devnet();
    const [user, recipient] = [f.accounts.users[0], f.accounts.users[1]];
    if (!user || !recipient) throw new Error("demo users missing");
    const relayer = f.accounts.relayer;
    const origin = f.chain(ORIGIN);
    const dest = f.chain(DESTINATION);
    const inputToken = manifestToken(origin, "USDC").address;
    const outputToken = manifestToken(dest, "USDC").address;
    const inputAmount = parseUnits("100", 6);
    const outputAmount = parseUnits("99.9", 6);

    // Deposit on the origin chain.
    const originPublic = f.publicClient(ORIGIN);
    const userWallet = f.walletClient(ORIGIN, user);
    await originPublic.waitForTransactionReceipt({
      hash: await userWallet.writeContract({
        address: inputToken,
        abi: erc20Abi,
        functionName: "approve",
        args: [origin.contracts.spokePool, inputAmount],
      }),
    });
    const now = Number((await originPublic.getBlock()).timestamp);
    const fillDeadline = now + 3600;
    const depositorBefore = await balanceOf(ORIGIN, inputToken, user.address);
    const depositHash = await userWallet.writeContract({
      address: origin.contracts.spokePool,
      abi: spokeAbi,
      functionName: "deposit",
      args: [
        b32(user.address),
        b32(recipient.address),
        b32(inputToken),
        b32(outputToken),
        inputAmount,
        outputAmount,
        BigInt(DESTINATION),
        b32("0x0000000000000000000000000000000000000000"),
        now,
        fillDeadline,
        0,
        "0x",
      ],
    });
    const depositReceipt = await originPublic.waitForTransactionReceipt({ hash: depositHash });
    expect(depositReceipt.status).toBe("success");
    const [deposited] = parseEventLogs({ abi: spokeAbi, logs: depositReceipt.logs, eventName: "FundsDeposited" });
    if (!deposited) throw new Error("no FundsDeposited event");
    const ev = deposited.args as unknown as Record<string, unknown>;
    expect(deposited.address.toLowerCase()).toBe(origin.contracts.spokePool.toLowerCase());
    expect(ev.destinationChainId).toBe(BigInt(DESTINATION));
    expect(ev.depositId).toBe(BigInt(INITIAL_DEPOSIT_ID));
    expect(ev.inputAmount).toBe(inputAmount);
    expect(ev.outputAmount).toBe(outputAmount);
    expect(ev.depositor).toBe(b32(user.address).toLowerCase());
    expect(await balanceOf(ORIGIN, inputToken, user.address)).toBe(depositorBefore - inputAmount);

    // Fill on the destination chain, as the relayer.
    const destPublic = f.publicClient(DESTINATION);
    const relayerWallet = f.walletClient(DESTINATION, relayer);
    await destPublic.waitForTransactionReceipt({
      hash: await relayerWallet.writeContract({
        address: outputToken,
        abi: erc20Abi,
        functionName: "approve",
        args: [dest.contracts.spokePool, outputAmount],
      }),
    });
    const relayData = {
      depositor: ev.depositor as Hex,
      recipient: ev.recipient as Hex,
      exclusiveRelayer: ev.exclusiveRelayer as Hex,
      inputToken: ev.inputToken as Hex,
      outputToken: ev.outputToken as Hex,
      inputAmount,
      outputAmount,
      originChainId: BigInt(ORIGIN),
      depositId: ev.depositId as bigint,
      fillDeadline: ev.fillDeadline as number,
      exclusivityDeadline: ev.exclusivityDeadline as number,
      message: ev.message as Hex,
    };
    const recipientBefore = await balanceOf(DESTINATION, outputToken, recipient.address);
    const fillHash = await relayerWallet.writeContract({
      address: dest.contracts.spokePool,
      abi: spokeAbi,
      functionName: "fillRelay",
      args: [relayData, BigInt(ORIGIN), b32(relayer.address)],
    });
    const fillReceipt = await destPublic.waitForTransactionReceipt({ hash: fillHash });
    expect(fillReceipt.status).toBe("success");
    expect(parseEventLogs({ abi: spokeAbi, logs: fillReceipt.logs, eventName: "FilledRelay" })).toHaveLength(1);
    expect(await balanceOf(DESTINATION, outputToken, recipient.address)).toBe(recipientBefore + outputAmount);

    // The relay hash is keccak(abi.encode(relayData, destinationChainId)); its fill status is Filled (2).
    const relayHash = keccak256(
      encodeAbiParameters(
        parseAbiParameters(
          "(bytes32,bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,uint256,uint32,uint32,bytes), uint256",
        ),
        [
          [
            relayData.depositor,
            relayData.recipient,
            relayData.exclusiveRelayer,
            relayData.inputToken,
            relayData.outputToken,
            relayData.inputAmount,
            relayData.outputAmount,
            relayData.originChainId,
            relayData.depositId,
            relayData.fillDeadline,
            relayData.exclusivityDeadline,
            relayData.message,
          ],
          BigInt(DESTINATION),
        ],
      ),
    );
    const onChainHash = await destPublic.readContract({
      address: dest.contracts.spokePool,
      abi: spokeAbi,
      functionName: "getV3RelayHash",
      args: [relayData],
    });
    expect(onChainHash).toBe(relayHash);
    const status = await destPublic.readContract({
      address: dest.contracts.spokePool,
      abi: spokeAbi,
      functionName: "fillStatuses",
      args: [relayHash],
    });
    expect(status).toBe(2n);
  });

  it("isolates tests: the previous test's deposit was reverted", async () => {
    const f = devnet();
    const n = await f.publicClient(ORIGIN).readContract({
      address: f.chain(ORIGIN).contracts.spokePool,
      abi: spokeAbi,
      functionName: "numberOfDeposits",
    });
    expect(n).toBe(INITIAL_DEPOSIT_ID);
  });
});

describe("devnet: Uniswap V2", () => {
  it("swaps through the router for exactly what getAmountsOut quoted, at a realistic price", async () => {
    const f = devnet();
    const user = f.accounts.users[0];
    if (!user) throw new Error("demo user missing");
    const c = f.chain(DESTINATION);
    const usdc = manifestToken(c, "USDC").address;
    const weth = manifestToken(c, "WETH").address;
    const router = c.contracts.uniswapV2Router02;
    const client = f.publicClient(DESTINATION);
    const wallet = f.walletClient(DESTINATION, user);
    const amountIn = parseUnits("3000", 6);

    const amounts = (await client.readContract({
      address: router,
      abi: routerAbi,
      functionName: "getAmountsOut",
      args: [amountIn, [usdc, weth]],
    })) as bigint[];
    const quoted = amounts[1] ?? 0n;
    // 3000 USDC at 3000 USDC/ETH, less the 0.3% fee and a little price impact on a 1000 ETH pool.
    expect(quoted).toBeGreaterThan(parseUnits("0.99", 18));
    expect(quoted).toBeLessThan(parseUnits("1", 18));

    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: usdc,
        abi: erc20Abi,
        functionName: "approve",
        args: [router, amountIn],
      }),
    });
    const before = await balanceOf(DESTINATION, weth, user.address);
    // The deadline from the chain's clock, not this process's: the devnet's blocks need not follow it.
    const deadline = (await client.getBlock()).timestamp + 600n;
    const swap = {
      address: router,
      abi: routerAbi,
      functionName: "swapExactTokensForTokens",
      args: [amountIn, quoted, [usdc, weth], user.address, deadline],
    } as const;
    // An estimate made in the second the pair was seeded leaves out the price accumulators that a swap mined a
    // second later writes; on a pair never swapped, both go from zero to non-zero (2 × 17,100 gas more than an
    // update). A percentage is not enough headroom on a ~98k estimate (seen in CI: ×1.3 gave 127,013, reverted).
    const gas = (await client.estimateContractGas({ ...swap, account: user.address })) + 60_000n;
    const hash = await wallet.writeContract({ ...swap, gas });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status, receipt.status === "success" ? "" : await whyReverted(DESTINATION, hash)).toBe("success");
    expect(await balanceOf(DESTINATION, weth, user.address)).toBe(before + quoted);
  });

  it("seeds every pool with liquidity", async () => {
    const f = devnet();
    const pairAbi = loadArtifact("UniswapV2Pair").abi;
    for (const pool of f.chain(ORIGIN).pools) {
      const [r0, r1] = (await f.publicClient(ORIGIN).readContract({
        address: pool.pair,
        abi: pairAbi,
        functionName: "getReserves",
      })) as [bigint, bigint, number];
      expect(r0 > 0n && r1 > 0n, pool.name).toBe(true);
    }
  });
});
