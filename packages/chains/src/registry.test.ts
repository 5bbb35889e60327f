import { describe, expect, it } from "vitest";
import { createChainClient, viemChain } from "./clients.ts";
import { chains, DEFAULT_DEVNET_CHAINS, DEFAULT_DEVNET_PORTS, devnetBlockTime, getChain } from "./registry.ts";

describe("chain registry", () => {
  it("lists exactly the 13 chain ids of the crosschain spec", () => {
    expect(chains.map((c) => c.chainId)).toEqual([
      1, 10, 137, 324, 8453, 42161, 59144, 84532, 421614, 11155420, 11155111, 999, 1337,
    ]);
    for (const c of chains) {
      expect(c.name.length).toBeGreaterThan(0);
      expect(c.nativeCurrency.decimals).toBe(18);
      expect(c.blockTimeSec).toBeGreaterThan(0);
    }
    expect(chains.filter((c) => c.testnet).map((c) => c.chainId)).toEqual([84532, 421614, 11155420, 11155111]);
  });

  it("knows wrapped native tokens on the real chains", () => {
    expect(getChain(1)?.wrappedNative?.address).toBe("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2");
    expect(getChain(137)?.wrappedNative?.symbol).toBe("WPOL");
    expect(getChain(999)?.nativeCurrency.symbol).toBe("HYPE");
    expect(getChain(1337)?.wrappedNative).toBeUndefined();
    expect(getChain(5)).toBeUndefined();
  });

  it("has a default port for every default devnet chain, and block times of at least 2 s", () => {
    expect(DEFAULT_DEVNET_CHAINS).toEqual([1, 10, 137, 8453, 42161, 999, 1337]);
    expect(DEFAULT_DEVNET_CHAINS.map((id) => DEFAULT_DEVNET_PORTS[id])).toEqual([
      8545, 8546, 8547, 8548, 8549, 8550, 8551,
    ]);
    expect(devnetBlockTime(1)).toBe(12);
    expect(devnetBlockTime(42161)).toBe(2);
    expect(devnetBlockTime(999)).toBe(2);
  });

  it("builds viem clients over http or ws from the URL scheme", () => {
    const http = createChainClient({ chainId: 10, rpcUrl: "http://127.0.0.1:1" });
    expect(http.chain?.id).toBe(10);
    expect(http.transport.type).toBe("http");
    const ws = createChainClient({ chainId: 8453, rpcUrl: "ws://127.0.0.1:1" });
    expect(ws.transport.type).toBe("webSocket");
    expect(viemChain(999, "https://rpc.example").nativeCurrency.symbol).toBe("HYPE");
    expect(() => createChainClient({ chainId: 1, rpcUrl: "ftp://x" })).toThrow(/scheme/);
  });
});
