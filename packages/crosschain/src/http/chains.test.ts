/** `GET /chains` over HTTP (no chain node needed), plus the RPC URL rule. */
import type { ChainEndpoint } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { publicRpcUrl } from "./chains.ts";

const WETH = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const WBTC = "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9";
const SPOKE_10 = "0x0165878A594ca255338adfa4d48449f69242Eb8F";
const SPOKE_8453 = "0x09aea4b2242abC8bb4BB78D537A67a245A7bEC64";

const chains: ChainEndpoint[] = [
  {
    chainId: 10,
    rpcUrl: "http://127.0.0.1:8546",
    contracts: { spokePool: SPOKE_10 },
    tokens: [
      { symbol: "WETH", address: WETH, decimals: 18 },
      { symbol: "USDC", address: USDC, decimals: 6 },
      { symbol: "WBTC", address: WBTC, decimals: 8 },
    ],
    wrappedNativeToken: WETH,
  },
  {
    chainId: 8453,
    rpcUrl: "https://base-mainnet.example.com/v2/secret",
    contracts: { spokePool: SPOKE_8453 },
    tokens: [
      { symbol: "WETH", address: WETH, decimals: 18 },
      { symbol: "USDC", address: USDC, decimals: 6 },
    ],
    wrappedNativeToken: WETH,
  },
  { chainId: 42161, rpcUrl: "http://127.0.0.1:8549" }, // no SpokePool: not served
];

let s: TestService;
beforeAll(async () => {
  s = await startTestService(crosschainService, { chains });
});
afterAll(async () => {
  await s?.close();
});

const get = async (query = "", key: string | null = s.apiKey) => {
  const res = await fetch(`${s.url}/api/chains${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: await res.json() };
};

describe("GET /chains", () => {
  it("lists the SpokePool chains like the anchor's /chains", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body.map((c: { chainId: number }) => c.chainId)).toEqual([10, 8453]);
    const [optimism, base] = res.body;
    expect(Object.keys(optimism)).toEqual([
      "chainId",
      "name",
      "publicRpcUrl",
      "explorerUrl",
      "logoUrl",
      "spokePool",
      "spokePoolBlock",
      "inputTokens",
      "outputTokens",
    ]);
    expect(optimism).toMatchObject({
      chainId: 10,
      name: "Optimism",
      publicRpcUrl: "http://127.0.0.1:8546",
      spokePool: SPOKE_10,
    });
    expect(base).toMatchObject({
      chainId: 8453,
      name: "Base",
      publicRpcUrl: "",
      spokePool: SPOKE_8453,
      spokePoolBlock: 0,
    });
    // Tokens of the enabled routes: WBTC has no counterpart on 8453, so it is not an input token of 10.
    expect(optimism.inputTokens.map((t: { symbol: string }) => t.symbol)).toEqual(["WETH", "USDC", "ETH"]);
    expect(optimism.inputTokens[1]).toEqual({
      chainId: 10,
      address: USDC,
      symbol: "USDC",
      name: "USD Coin",
      decimals: 6,
      logoUrl: "",
    });
    expect(base.outputTokens.map((t: { symbol: string }) => t.symbol)).toEqual(["WETH", "USDC", "ETH"]);
  });

  it("filters by chainId (once or repeated, as the app-sdk sends it), symbols and omitTokens", async () => {
    const one = await get("?chainId=8453");
    expect(one.body.map((c: { spokePool: string }) => c.spokePool)).toEqual([SPOKE_8453]);
    const several = await get("?chainId=10&chainId=8453&chainId=1");
    expect(several.body.map((c: { chainId: number }) => c.chainId)).toEqual([10, 8453]);
    expect((await get("?chainId=1")).body).toEqual([]);
    expect((await get("?inputTokenSymbol=wbtc")).body).toEqual([]);
    expect((await get("?outputTokenSymbol=eth")).body).toHaveLength(2);
    const bare = await get("?omitTokens=true&chainId=10");
    expect(bare.body[0]).toMatchObject({ chainId: 10, inputTokens: [], outputTokens: [] });
  });

  it.each([
    ["chainId", "?chainId=abc"],
    ["chainId", "?chainId=0"],
    ["omitTokens", "?omitTokens=perhaps"],
    ["inputTokenSymbol", `?inputTokenSymbol=${"A".repeat(40)}`],
  ])("400 INVALID_PARAM for a bad %s", async (param, query) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "ServiceApiError", code: "INVALID_PARAM", status: 400 });
    expect(res.body.param).toMatch(new RegExp(`^${param}`));
  });

  it("401 without the bearer key", async () => {
    expect((await get("", null)).status).toBe(401);
  });

  it("documents the quote endpoints in the OpenAPI document", async () => {
    const doc = await (await fetch(`${s.url}/openapi.json`)).json();
    for (const path of ["/api/suggested-fees", "/api/available-routes", "/api/chains"]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    const params = doc.paths["/api/suggested-fees"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(
      expect.arrayContaining(["amount", "inputToken", "outputToken", "originChainId", "destinationChainId"]),
    );
  });
});

describe("publicRpcUrl", () => {
  it("shows local and credential-free URLs, hides anything that may carry a key", () => {
    expect(publicRpcUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
    expect(publicRpcUrl("ws://localhost:8546")).toBe("ws://localhost:8546");
    expect(publicRpcUrl("http://192.168.1.20:8545/rpc")).toBe("http://192.168.1.20:8545/rpc");
    expect(publicRpcUrl("https://mainnet.optimism.io")).toBe("https://mainnet.optimism.io");
    expect(publicRpcUrl("https://eth-mainnet.g.alchemy.com/v2/abc123")).toBe("");
    expect(publicRpcUrl("https://rpc.example.org/?apikey=abc")).toBe("");
    expect(publicRpcUrl("https://user:pass@rpc.example.org")).toBe("");
    expect(publicRpcUrl("http://user:pass@127.0.0.1:8545")).toBe("");
    expect(publicRpcUrl("not a url")).toBe("");
  });
});
