/**
 * `GET /available-routes` over HTTP. The route list needs no chain state, so the chains here are plain
 * endpoints (no node behind them): the service must answer without any RPC.
 */
import type { ChainEndpoint } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";

const WETH = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const DAI = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const SPOKE = "0x0165878A594ca255338adfa4d48449f69242Eb8F";

const testChains: ChainEndpoint[] = [
  {
    chainId: 10,
    rpcUrl: "http://127.0.0.1:1",
    contracts: { spokePool: SPOKE, multicallHandler: "0x610178dA211FEF7D417bC0e6FeD39F05609AD788" },
    tokens: [
      { symbol: "WETH", address: WETH, decimals: 18 },
      { symbol: "USDC", address: USDC, decimals: 6 },
      { symbol: "DAI", address: DAI, decimals: 18 },
    ],
    wrappedNativeToken: WETH,
  },
  {
    chainId: 8453,
    rpcUrl: "https://base.example.org/v2/secret-key",
    contracts: { spokePool: SPOKE },
    tokens: [
      { symbol: "WETH", address: WETH, decimals: 18 },
      { symbol: "USDC", address: USDC_BASE, decimals: 6 },
    ],
    wrappedNativeToken: WETH,
  },
  // No SpokePool: not served.
  { chainId: 1, rpcUrl: "http://127.0.0.1:2", tokens: [{ symbol: "USDC", address: USDC, decimals: 6 }] },
];

let s: TestService;
beforeAll(async () => {
  s = await startTestService(crosschainService, { chains: testChains });
});
afterAll(async () => {
  await s?.close();
});

const get = async (query: Record<string, string> = {}, key: string | null = s.apiKey) => {
  const res = await fetch(`${s.url}/api/available-routes?${new URLSearchParams(query)}`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  return { status: res.status, body: await res.json() };
};

describe("GET /available-routes", () => {
  it("lists every enabled route as a bare array of route records", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(6); // per direction: USDC, WETH, ETH (native); DAI is only on chain 10
    expect(
      res.body.find(
        (r: { originChainId: number; originTokenSymbol: string }) =>
          r.originChainId === 10 && r.originTokenSymbol === "USDC",
      ),
    ).toEqual({
      originChainId: 10,
      originToken: USDC,
      destinationChainId: 8453,
      destinationToken: USDC_BASE,
      originTokenSymbol: "USDC",
      destinationTokenSymbol: "USDC",
      isNative: false,
    });
    const weth = res.body.filter(
      (r: { originChainId: number; originToken: string }) => r.originChainId === 8453 && r.originToken === WETH,
    );
    expect(
      weth.map((r: { isNative: boolean; originTokenSymbol: string }) => [r.originTokenSymbol, r.isNative]),
    ).toEqual([
      ["WETH", false],
      ["ETH", true],
    ]);
  });

  it("filters by chain, token address (any case) and symbol (any case)", async () => {
    const byOrigin = await get({ originChainId: "8453" });
    expect(byOrigin.body.every((r: { originChainId: number }) => r.originChainId === 8453)).toBe(true);
    expect(byOrigin.body).toHaveLength(3);

    const byToken = await get({ destinationToken: USDC_BASE.toLowerCase() });
    expect(byToken.body).toHaveLength(1);
    expect(byToken.body[0].originToken).toBe(USDC);

    const native = await get({ originTokenSymbol: "eth", destinationChainId: "10" });
    expect(native.body).toEqual([
      {
        originChainId: 8453,
        originToken: WETH,
        destinationChainId: 10,
        destinationToken: WETH,
        originTokenSymbol: "ETH",
        destinationTokenSymbol: "ETH",
        isNative: true,
      },
    ]);
    expect((await get({ destinationTokenSymbol: "DAI" })).body).toEqual([]);
    expect((await get({ originChainId: "1" })).body).toEqual([]); // enumerated, but no SpokePool here
  });

  it.each([
    ["originChainId", "abc"],
    ["originChainId", "5"],
    ["destinationChainId", "-10"],
    ["originToken", "0x123"],
    ["destinationToken", "WETH"],
    ["originTokenSymbol", "<script>"],
    ["destinationTokenSymbol", "X".repeat(40)],
  ])("400 INVALID_PARAM for a bad %s (%s)", async (param, value) => {
    const res = await get({ [param]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "ServiceApiError", code: "INVALID_PARAM", status: 400, param });
    expect(typeof res.body.id).toBe("string");
  });

  it("401 without the bearer key", async () => {
    const res = await get({}, null);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ type: "ServiceApiError", code: "UNAUTHORIZED" });
  });
});
