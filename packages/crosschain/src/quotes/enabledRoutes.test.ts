import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@platform/kernel";
import { afterAll, describe, expect, it } from "vitest";
import type { SpokeChain } from "../deployments.ts";
import { offlineSpokeChain } from "../testing/offlineSpokeChain.ts";
import {
  buildEnabledRoutes,
  defaultRoutes,
  isRouteEnabled,
  loadEnabledRoutes,
  parseRoutesConfig,
  readRoutesConfigFile,
} from "./enabledRoutes.ts";

const WETH = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
const USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" as const;
const DAI = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" as const;
const WBTC = "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9" as const;
const USDC_B = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;

const chain = (chainId: number, tokens: SpokeChain["tokens"], wrapped: `0x${string}` | undefined = WETH) =>
  offlineSpokeChain(chainId, tokens, { wrappedNativeToken: wrapped });

const weth = { symbol: "WETH", address: WETH, decimals: 18 };
const usdc = { symbol: "USDC", address: USDC, decimals: 6 };
const chains = [
  chain(10, [weth, usdc, { symbol: "DAI", address: DAI, decimals: 18 }]),
  chain(8453, [weth, { symbol: "USDC", address: USDC_B, decimals: 6 }, { symbol: "WBTC", address: WBTC, decimals: 8 }]),
  // No wrapped native token known: no native routes to or from this chain.
  chain(137, [usdc], undefined),
];

const dir = mkdtempSync(join(tmpdir(), "routes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe("default routes", () => {
  const routes = defaultRoutes(chains);

  it("pairs every symbol present on both chains, in both directions, plus native routes", () => {
    const pair = (o: number, d: number) =>
      routes
        .filter((r) => r.originChainId === o && r.destinationChainId === d)
        .map((r) => `${r.originTokenSymbol}>${r.destinationTokenSymbol}${r.isNative ? "*" : ""}`)
        .sort();
    expect(pair(10, 8453)).toEqual(["ETH>ETH*", "USDC>USDC", "WETH>WETH"]);
    expect(pair(8453, 10)).toEqual(["ETH>ETH*", "USDC>USDC", "WETH>WETH"]);
    expect(pair(10, 137)).toEqual(["USDC>USDC"]);
    expect(pair(137, 8453)).toEqual(["USDC>USDC"]);
    expect(routes.some((r) => r.originChainId === r.destinationChainId)).toBe(false);
  });

  it("routes native ETH to a chain with another native coin as WETH, and not the other way", () => {
    const WHYPE = "0x5555555555555555555555555555555555555555" as const;
    const WETH_999 = "0x9999999999999999999999999999999999999999" as const;
    const hyper = chain(
      999,
      [
        { symbol: "WHYPE", address: WHYPE, decimals: 18 },
        { ...weth, address: WETH_999 },
      ],
      WHYPE,
    );
    const mixed = defaultRoutes([chains[0] as SpokeChain, hyper]);
    const ethToWeth = {
      originChainId: 10,
      originToken: WETH,
      destinationChainId: 999,
      destinationToken: WETH_999,
      originTokenSymbol: "ETH",
      destinationTokenSymbol: "WETH",
      isNative: true,
    };
    expect(mixed.filter((r) => r.isNative)).toEqual([ethToWeth]);
    // The routes file can state the same route, and only with the same wrapped coin out.
    const both = [chains[0] as SpokeChain, hyper];
    const route = { originChainId: 10, destinationChainId: 999, originToken: "WETH", isNative: true };
    expect(buildEnabledRoutes(both, parseRoutesConfig({ routes: [route] })).routes).toEqual([ethToWeth]);
    expect(() =>
      buildEnabledRoutes(both, parseRoutesConfig({ routes: [{ ...route, destinationToken: "WHYPE" }] })),
    ).toThrow(/a native route delivers WETH on chain 999, not WHYPE/);
  });

  it("uses each chain's own token addresses; a native route carries the wrapped addresses", () => {
    const usdcRoute = routes.find(
      (r) => r.originChainId === 10 && r.destinationChainId === 8453 && r.originTokenSymbol === "USDC",
    );
    expect(usdcRoute).toEqual({
      originChainId: 10,
      originToken: USDC,
      destinationChainId: 8453,
      destinationToken: USDC_B,
      originTokenSymbol: "USDC",
      destinationTokenSymbol: "USDC",
      isNative: false,
    });
    const native = routes.find((r) => r.isNative && r.originChainId === 8453);
    expect(native).toMatchObject({
      originToken: WETH,
      destinationToken: WETH,
      originTokenSymbol: "ETH",
      isNative: true,
    });
  });
});

describe("buildEnabledRoutes", () => {
  const table = buildEnabledRoutes(chains);

  it("answers isRouteEnabled case-insensitively, for the native and the ERC-20 route", () => {
    const q = {
      originChainId: 10,
      destinationChainId: 8453,
      inputToken: USDC.toLowerCase(),
      outputToken: USDC_B.toUpperCase().replace("0X", "0x"),
    };
    expect(table.isRouteEnabled(q)).toBe(true);
    expect(isRouteEnabled(q, table)).toBe(true);
    expect(table.isRouteEnabled({ ...q, outputToken: USDC })).toBe(false);
    expect(table.isRouteEnabled({ ...q, originChainId: 8453, destinationChainId: 10 })).toBe(false);
    const w = { originChainId: 10, destinationChainId: 8453, inputToken: WETH, outputToken: WETH };
    expect(table.find(w)?.isNative).toBe(false);
    expect(table.find({ ...w, isNative: true })?.isNative).toBe(true);
    expect(table.isRouteEnabled({ ...w, originChainId: 137 })).toBe(false);
  });

  it("filters like /available-routes (symbols case-insensitive, addresses too)", () => {
    expect(table.filter({ originTokenSymbol: "eth" }).every((r) => r.isNative)).toBe(true);
    expect(table.filter({ originTokenSymbol: "eth" })).toHaveLength(2);
    expect(table.filter({ destinationToken: USDC_B.toLowerCase() }).map((r) => r.originChainId)).toEqual([10, 137]);
    expect(table.filter({ originChainId: 137, destinationChainId: 10 })).toHaveLength(1);
    expect(table.filter({ originChainId: 1 })).toEqual([]);
  });

  it("replaces the defaults with configured routes (symbols or addresses, cross-symbol, native)", () => {
    const t = buildEnabledRoutes(
      chains,
      parseRoutesConfig({
        routes: [
          { originChainId: 10, destinationChainId: 8453, originToken: "usdc" },
          { originChainId: 10, destinationChainId: 137, originToken: DAI, destinationToken: "USDC" },
          { originChainId: 8453, destinationChainId: 10, originToken: "WETH", isNative: true },
        ],
      }),
    );
    expect(
      t.routes.map(
        (r) => `${r.originChainId}:${r.originTokenSymbol}>${r.destinationChainId}:${r.destinationTokenSymbol}`,
      ),
    ).toEqual(["10:DAI>137:USDC", "10:USDC>8453:USDC", "8453:ETH>10:ETH"]);
    // Within a chain pair: the chain's token order, the native route after the tokens.
    expect(
      buildEnabledRoutes(chains)
        .filter({ originChainId: 10, destinationChainId: 8453 })
        .map((r) => r.originTokenSymbol),
    ).toEqual(["WETH", "USDC", "ETH"]);
  });

  it("keeps the defaults with includeDefaults, and applies disable filters last", () => {
    const t = buildEnabledRoutes(
      chains,
      parseRoutesConfig({
        includeDefaults: true,
        routes: [{ originChainId: 10, destinationChainId: 137, originToken: "DAI", destinationToken: "USDC" }],
        disable: [{ symbol: "weth" }, { originChainId: 137 }],
      }),
    );
    expect(t.isRouteEnabled({ originChainId: 10, destinationChainId: 137, inputToken: DAI, outputToken: USDC })).toBe(
      true,
    );
    expect(t.routes.some((r) => r.originTokenSymbol === "WETH")).toBe(false);
    expect(t.routes.some((r) => r.isNative)).toBe(true); // "ETH" routes are not WETH by symbol
    expect(t.routes.some((r) => r.originChainId === 137)).toBe(false);
  });

  it("reads a routes file (a bare array means routes) and falls back to the defaults without one", () => {
    const path = file(
      "bare.json",
      JSON.stringify([{ originChainId: 8453, destinationChainId: 10, originToken: "USDC" }]),
    );
    expect(loadEnabledRoutes(chains, { routesFile: path }).routes).toHaveLength(1);
    expect(loadEnabledRoutes(chains, { routesFile: " " }).routes).toEqual(buildEnabledRoutes(chains).routes);
    expect(loadEnabledRoutes(chains).routes.length).toBe(defaultRoutes(chains).length);
  });
});

describe("configuration errors", () => {
  const bad = (config: unknown) => () => buildEnabledRoutes(chains, parseRoutesConfig(config));

  it.each([
    ["not an object", 42, /expected an object/],
    ["unknown top-level field", { route: [] }, /unknown field "route"/],
    ["routes not an array", { routes: {} }, /routes must be an array/],
    ["missing chain id", { routes: [{ destinationChainId: 10, originToken: "USDC" }] }, /routes\[0\]\.originChainId/],
    [
      "bad isNative",
      { routes: [{ originChainId: 10, destinationChainId: 8453, originToken: "WETH", isNative: "yes" }] },
      /isNative/,
    ],
    [
      "unknown token",
      { routes: [{ originChainId: 10, destinationChainId: 8453, originToken: "FOO" }] },
      /token "FOO" is not known on chain 10/,
    ],
    [
      "no such token on destination",
      { routes: [{ originChainId: 10, destinationChainId: 8453, originToken: "DAI" }] },
      /"DAI" is not known on chain 8453/,
    ],
    [
      "unknown chain",
      { routes: [{ originChainId: 10, destinationChainId: 42161, originToken: "USDC" }] },
      /42161 has no SpokePool/,
    ],
    ["same chain", { routes: [{ originChainId: 10, destinationChainId: 10, originToken: "USDC" }] }, /same chain/],
    [
      "native without wrapped token",
      { routes: [{ originChainId: 10, destinationChainId: 8453, originToken: "USDC", isNative: true }] },
      /wrapped native/,
    ],
    ["empty disable entry", { disable: [{}] }, /at least one/],
    ["bad disable address", { disable: [{ originToken: "0x12" }] }, /must be an address/],
  ])("%s", (_name, config, message) => {
    expect(bad(config)).toThrow(ConfigError);
    expect(bad(config)).toThrow(message);
  });

  it("reports unreadable and invalid files with their path", () => {
    expect(() => readRoutesConfigFile(join(dir, "missing.json"))).toThrow(/cannot be read/);
    const path = file("broken.json", "{ not json");
    expect(() => readRoutesConfigFile(path)).toThrow(/is not valid JSON/);
  });
});
