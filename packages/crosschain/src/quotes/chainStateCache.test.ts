/** The chain-state cache against a real devnet (two anvil chains with the Across contracts and the pools). */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { parseAbi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spokeChains } from "../deployments.ts";
import { WAD } from "../domain/fees/fixedPoint.ts";
import { multicallInstructions } from "../testing/multicallInstructions.ts";
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

/**
 * A JSON-RPC node in front of a devnet chain: it passes requests on and records their methods; while
 * `held` is set, it waits for that promise before answering; while `down`, it drops every connection as a
 * node that stopped would; requests of the `failing` method get a 503, as from a node too busy to answer them.
 */
async function startRpcProxy(upstream: string) {
  const node = {
    url: "",
    methods: [] as string[],
    held: undefined as Promise<void> | undefined,
    down: false,
    failing: undefined as string | undefined,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    node.methods.push(...[JSON.parse(body.toString())].flat().map((call: { method: string }) => call.method));
    await node.held;
    if (node.down) {
      req.socket.destroy();
      return;
    }
    if (node.failing && [JSON.parse(body.toString())].flat().some((call) => call.method === node.failing)) {
      res.writeHead(503).end("busy");
      return;
    }
    const reply = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(reply.status, { "content-type": "application/json" }).end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return node;
}

/** The devnet's chains as the cache gets them, with `chainId` served through `rpcUrl`. */
const chainsWith = (chainId: number, rpcUrl: string) =>
  spokeChains(contextChains(devnet).map((c) => (c.chainId === chainId ? { ...c, rpcUrl } : c)));

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

  it("runs a refresh loop between start() and stop(), and refreshes nothing after stop()", async () => {
    const node = await startRpcProxy(devnet.chain(10).rpcUrl);
    const looping = createChainStateCache({
      chains: chainsWith(10, node.url).filter((c) => c.chainId === 10),
      relayerAddress: devnet.accounts.relayer.address,
      refreshIntervalMs: 50,
    });
    // Every refresh reads the chain's latest block once.
    const refreshes = () => node.methods.filter((m) => m === "eth_getBlockByNumber").length;
    // Ten intervals without a refresh (snapshot() is not called: it may start one refresh on demand).
    const expectNoRefreshFor10Intervals = async () => {
      const atStop = refreshes();
      await new Promise((r) => setTimeout(r, 10 * 50));
      expect(refreshes()).toBe(atStop);
    };
    try {
      looping.start();
      expect(looping.running).toBe(true);
      // More refreshes than the one start() begins: the loop runs.
      await vi.waitFor(() => expect(refreshes()).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });

      // Stopped while a refresh is in flight (held at the node): the loop does not go on after it.
      let release!: () => void;
      node.held = new Promise((r) => {
        release = r;
      });
      const before = refreshes();
      await vi.waitFor(() => expect(refreshes()).toBeGreaterThan(before), { timeout: 10_000, interval: 5 });
      const stopping = looping.stop();
      release();
      node.held = undefined;
      await stopping;
      expect(looping.running).toBe(false);
      await expectNoRefreshFor10Intervals();

      // Stopped between two refreshes (the next one's timer set): that timer never fires.
      looping.start();
      await looping.refresh(); // joins start()'s refresh, after which the loop has set its timer
      await looping.stop();
      await expectNoRefreshFor10Intervals();
    } finally {
      await looping.stop();
      await node.close();
    }
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
    const message = multicallInstructions(devnet.accounts.users[0]!.address);
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
    const node = await startRpcProxy(devnet.chain(8453).rpcUrl);
    const failing = createChainStateCache({
      chains: chainsWith(8453, node.url),
      relayerAddress: devnet.accounts.relayer.address,
    });
    try {
      await failing.refresh();
      const good = failing.snapshot().chains.get(8453)!;
      const otherBefore = failing.snapshot().chains.get(10)!;
      node.down = true;
      await failing.refresh();
      const after = failing.snapshot();
      expect(after.chains.get(8453)).toBe(good);
      expect(after.errors.get(8453)).toMatch(/^HTTP request failed/); // viem's first line, without the URL
      // The other chain was refreshed all the same (each refresh makes a new state).
      expect(after.chains.get(10)).not.toBe(otherBefore);
      expect(after.errors.has(10)).toBe(false);
      node.down = false;
      await failing.refresh();
      expect(failing.snapshot().errors.size).toBe(0);
      expect(failing.snapshot().chains.get(8453)).not.toBe(good);
    } finally {
      await failing.stop();
      await node.close();
    }
  });

  it("keeps the last balances when only the multicall request fails (never reads the failure as zero balances)", async () => {
    const node = await startRpcProxy(devnet.chain(8453).rpcUrl);
    const failing = createChainStateCache({
      chains: chainsWith(8453, node.url),
      relayerAddress: devnet.accounts.relayer.address,
    });
    try {
      await failing.refresh();
      const good = failing.snapshot().chains.get(8453)!;
      expect(good.relayerBalances.size).toBeGreaterThan(0);
      node.failing = "eth_call"; // the block and the gas price still answer
      await failing.refresh();
      expect(failing.snapshot().chains.get(8453)).toBe(good);
      expect(failing.snapshot().errors.has(8453)).toBe(true);
      node.failing = undefined;
      await failing.refresh();
      expect(failing.snapshot().errors.size).toBe(0);
      expect(failing.snapshot().chains.get(8453)!.relayerBalances).toEqual(good.relayerBalances);
    } finally {
      await failing.stop();
      await node.close();
    }
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
