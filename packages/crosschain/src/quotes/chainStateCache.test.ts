/** The chain-state cache against a real devnet (two anvil chains with the Across contracts and the pools). */
import { createChainClient } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createPublicClient, custom, encodeAbiParameters, type PublicClient, parseAbi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spokeChains } from "../deployments.ts";
import { WAD } from "../domain/fees/fixedPoint.ts";
import { contextChains } from "../testing/spokePoolActions.ts";
import { type ChainStateCache, createChainStateCache } from "./chainStateCache.ts";

const erc20 = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address, uint256) returns (bool)",
]);

let devnet: DevnetFixture;
let cache: ChainStateCache;
const CHAINS = [10, 8453];

beforeAll(async () => {
  devnet = await startDevnetFixture({ chainIds: CHAINS });
  cache = createChainStateCache({
    chains: spokeChains(contextChains(devnet)),
    relayerAddress: devnet.accounts.relayer.address,
    refreshIntervalMs: 100,
  });
  await cache.refresh();
});
afterAll(async () => {
  await cache?.stop();
  await devnet?.stop();
});

const token = (chainId: number, symbol: string) => devnet.chain(chainId).tokens.find((t) => t.symbol === symbol)!;

describe("chain-state cache", () => {
  it("reads block, gas price, relayer balances, prices and fill gas of every chain", async () => {
    const snapshot = cache.snapshot();
    expect([...snapshot.chains.keys()].sort()).toEqual(CHAINS);
    expect(snapshot.errors.size).toBe(0);
    for (const chainId of CHAINS) {
      const state = snapshot.chains.get(chainId)!;
      const client = devnet.publicClient(chainId);
      const block = await client.getBlock({ blockNumber: state.blockNumber });
      expect(state.blockTimestamp).toBe(Number(block.timestamp));
      expect(state.baseFeePerGas).toBe(block.baseFeePerGas);
      expect(state.gasPrice).toBe((state.baseFeePerGas! * 3n) / 2n + state.maxPriorityFeePerGas);
      expect(state.gasPrice).toBeGreaterThan(0n);

      for (const t of devnet.chain(chainId).tokens) {
        const onChain = await client.readContract({
          address: t.address,
          abi: erc20,
          functionName: "balanceOf",
          args: [devnet.accounts.relayer.address],
        });
        expect(state.relayerBalances.get(t.address.toLowerCase())).toBe(onChain);
        const gas = state.fillGas.get(t.address.toLowerCase())!;
        // The relayer never approved the SpokePool: the simulation overrides its allowance.
        expect(gas.source).toBe("simulated");
        expect(gas.gasUnits).toBeGreaterThan(50_000n);
        expect(gas.gasUnits).toBeLessThan(300_000n);
      }
      expect(state.relayerNativeBalance).toBe(await client.getBalance({ address: devnet.accounts.relayer.address }));

      // Devnet pools: 1 ETH = 3,000 USDC, 1 BTC = 30 ETH; stablecoins pinned to 1 USD.
      const prices = state.prices;
      expect(prices.nativeUsd).toBe(3000n * WAD);
      expect(prices.inNative.get(token(chainId, "WETH").address.toLowerCase())).toBe(WAD);
      expect(prices.inNative.get(token(chainId, "WBTC").address.toLowerCase())).toBe(30n * WAD);
      expect(prices.usd.get(token(chainId, "USDC").address.toLowerCase())).toBe(WAD);
      expect(prices.usd.get(token(chainId, "DAI").address.toLowerCase())).toBe(WAD);
    }
  });

  it("follows balance changes on the next refresh", async () => {
    const usdc = token(8453, "USDC");
    const wallet = devnet.walletClient(8453, devnet.accounts.relayer);
    const before = cache.snapshot().chains.get(8453)!.relayerBalances.get(usdc.address.toLowerCase())!;
    const hash = await wallet.writeContract({
      address: usdc.address,
      abi: erc20,
      functionName: "transfer",
      args: [devnet.accounts.users[0]!.address, parseUnits("1234", 6)],
    });
    await devnet.publicClient(8453).waitForTransactionReceipt({ hash });
    // A refresh started by an earlier snapshot() may still be in flight (refresh() joins it): the second
    // one surely reads after the transfer.
    await cache.refresh();
    await cache.refresh();
    const state = cache.snapshot().chains.get(8453)!;
    expect(state.relayerBalances.get(usdc.address.toLowerCase())).toBe(before - parseUnits("1234", 6));
  });

  it("runs a refresh loop between start() and stop()", async () => {
    const at = cache.snapshot().chains.get(10)!.updatedAt;
    cache.start();
    expect(cache.running).toBe(true);
    await vi.waitFor(() => expect(cache.snapshot().chains.get(10)!.updatedAt).toBeGreaterThan(at), {
      timeout: 10_000,
      interval: 50,
    });
    await cache.stop();
    expect(cache.running).toBe(false);
    const stopped = cache.snapshot().chains.get(10)!.updatedAt;
    await new Promise((r) => setTimeout(r, 300));
    // snapshot() may start one on-demand refresh when the state is older than the interval, but no loop runs.
    expect(cache.snapshot().chains.get(10)!.updatedAt).toBeGreaterThanOrEqual(stopped);
  });

  it("answers isContract from the known contracts, then from cached eth_getCode", async () => {
    const c = devnet.chain(10);
    expect(await cache.isContract(10, c.contracts.spokePool)).toBe(true);
    expect(await cache.isContract(10, c.contracts.multicallHandler.toLowerCase())).toBe(true);
    expect(await cache.isContract(10, devnet.accounts.users[1]!.address)).toBe(false);
    expect(await cache.isContract(10, c.pools[0]!.pair)).toBe(true); // not in the known list: eth_getCode
    expect(await cache.isContract(999, c.contracts.spokePool)).toBe(false); // chain not served
  });

  it("simulates a fill with a message (MulticallHandler instructions) and refuses a reverting one", async () => {
    const c = devnet.chain(10);
    const usdc = token(10, "USDC");
    // MulticallHandler's Instructions: no calls, leftovers to the fallback recipient.
    const message = encodeAbiParameters(
      [
        {
          type: "tuple",
          components: [
            {
              name: "calls",
              type: "tuple[]",
              components: [
                { name: "target", type: "address" },
                { name: "callData", type: "bytes" },
                { name: "value", type: "uint256" },
              ],
            },
            { name: "fallbackRecipient", type: "address" },
          ],
        },
      ],
      [{ calls: [], fallbackRecipient: devnet.accounts.users[0]!.address }],
    );
    const params = {
      destinationChainId: 10,
      outputToken: usdc.address,
      outputAmount: parseUnits("100", 6),
      recipient: c.contracts.multicallHandler,
      message,
    };
    const gas = await cache.estimateFillGas(params);
    expect(gas).toBeGreaterThan(cache.snapshot().chains.get(10)!.fillGas.get(usdc.address.toLowerCase())!.gasUnits);
    expect(await cache.estimateFillGas(params)).toBe(gas); // cached
    await expect(cache.estimateFillGas({ ...params, message: "0x1234" })).rejects.toThrow();
  });
});

describe("failures", () => {
  it("keeps the last state of a chain whose RPC fails, records the error, and recovers", async () => {
    let broken = false;
    const real = new Map<number, PublicClient>();
    const failing = createChainStateCache({
      chains: spokeChains(contextChains(devnet)),
      relayerAddress: devnet.accounts.relayer.address,
      createClient: (chain) => {
        const client = createChainClient(chain);
        real.set(chain.chainId, client);
        return createPublicClient({
          transport: custom(
            {
              request: (args) => {
                if (broken && chain.chainId === 8453) return Promise.reject(new Error("connection refused"));
                return client.request(args as never);
              },
            },
            { retryCount: 0 },
          ),
        }) as PublicClient;
      },
    });
    await failing.refresh();
    const good = failing.snapshot().chains.get(8453)!;
    broken = true;
    await failing.refresh();
    const after = failing.snapshot();
    expect(after.chains.get(8453)).toBe(good);
    expect(after.errors.get(8453)).toBeTruthy();
    expect(after.chains.get(10)!.updatedAt).toBeGreaterThanOrEqual(good.updatedAt);
    broken = false;
    await failing.refresh();
    expect(failing.snapshot().errors.size).toBe(0);
    expect(failing.snapshot().chains.get(8453)).not.toBe(good);
    await failing.stop();
  });

  it("uses the fallback gas and zero balances without a relayer, and ready() reports unreachable chains", async () => {
    const noRelayer = createChainStateCache({
      chains: spokeChains(contextChains(devnet)),
      fallbackFillGas: 123_456n,
    });
    expect(await noRelayer.ready(20_000)).toBe(true);
    const state = noRelayer.snapshot().chains.get(10)!;
    expect(state.relayerBalances.size).toBe(0);
    // Simulated from the default recipient address, which holds no tokens: every simulation reverts.
    expect([...state.fillGas.values()].every((g) => g.source === "fallback" && g.gasUnits === 123_456n)).toBe(true);
    await noRelayer.stop();

    const unreachable = createChainStateCache({
      chains: spokeChains([
        { chainId: 10, rpcUrl: "http://127.0.0.1:1", contracts: { spokePool: devnet.chain(10).contracts.spokePool } },
      ]),
    });
    expect(await unreachable.ready(5000)).toBe(false);
    expect(unreachable.snapshot().errors.has(10)).toBe(true);
    await unreachable.stop();
  });
});
