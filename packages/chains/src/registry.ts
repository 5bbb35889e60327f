import type { Address } from "viem";

/** A supported chain: identity, native currency and the facts the services need about it. */
export interface ChainInfo {
  chainId: number;
  name: string;
  /** Native gas currency (on the devnet every chain runs anvil, whose gas coin behaves like ETH). */
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /**
   * Wrapped native token on the real network, where one exists (HyperCore has none).
   * On the devnet the wrapped native token is our deployed WETH9: read it from the manifest instead.
   */
  wrappedNative?: { symbol: string; address: Address };
  /** Typical block time of the real network in seconds (used for default devnet interval mining). */
  blockTimeSec: number;
  testnet: boolean;
}

const ETH = { name: "Ether", symbol: "ETH", decimals: 18 } as const;
// The OP-stack predeploy address of WETH, shared by Optimism, Base and their testnets.
const OP_WETH = "0x4200000000000000000000000000000000000006";

/** The 13 chain ids the crosschain spec enumerates, in the spec's order. */
export const chains: readonly ChainInfo[] = Object.freeze([
  {
    chainId: 1,
    name: "Ethereum",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2" },
    blockTimeSec: 12,
    testnet: false,
  },
  {
    chainId: 10,
    name: "Optimism",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: OP_WETH },
    blockTimeSec: 2,
    testnet: false,
  },
  {
    chainId: 137,
    name: "Polygon",
    nativeCurrency: { name: "POL", symbol: "POL", decimals: 18 },
    wrappedNative: { symbol: "WPOL", address: "0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270" },
    blockTimeSec: 2,
    testnet: false,
  },
  {
    chainId: 324,
    name: "zkSync",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0x5AEa5775959fBC2557Cc8789bC1bf90A239D9a91" },
    blockTimeSec: 1,
    testnet: false,
  },
  {
    chainId: 8453,
    name: "Base",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: OP_WETH },
    blockTimeSec: 2,
    testnet: false,
  },
  {
    chainId: 42161,
    name: "Arbitrum One",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1" },
    blockTimeSec: 0.25,
    testnet: false,
  },
  {
    chainId: 59144,
    name: "Linea",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0xe5D7C2a44FfDDf6b295A15c148167daaAf5Cf34f" },
    blockTimeSec: 2,
    testnet: false,
  },
  {
    chainId: 84532,
    name: "Base Sepolia",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: OP_WETH },
    blockTimeSec: 2,
    testnet: true,
  },
  {
    chainId: 421614,
    name: "Arbitrum Sepolia",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0x980B62Da83eFf3D4576C647993b0c1D7faf17c73" },
    blockTimeSec: 0.25,
    testnet: true,
  },
  {
    chainId: 11155420,
    name: "Optimism Sepolia",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: OP_WETH },
    blockTimeSec: 2,
    testnet: true,
  },
  {
    chainId: 11155111,
    name: "Sepolia",
    nativeCurrency: ETH,
    wrappedNative: { symbol: "WETH", address: "0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14" },
    blockTimeSec: 12,
    testnet: true,
  },
  {
    chainId: 999,
    name: "HyperEVM",
    nativeCurrency: { name: "HYPE", symbol: "HYPE", decimals: 18 },
    wrappedNative: { symbol: "WHYPE", address: "0x5555555555555555555555555555555555555555" },
    // HyperEVM's "small blocks" come every second (large blocks every minute).
    blockTimeSec: 1,
    testnet: false,
  },
  {
    chainId: 1337,
    name: "HyperCore",
    nativeCurrency: { name: "HYPE", symbol: "HYPE", decimals: 18 },
    // HyperCore is not an EVM chain in reality; Across addresses it as chain 1337. On the devnet it is an anvil.
    blockTimeSec: 1,
    testnet: false,
  },
] satisfies ChainInfo[]);

const byId = new Map(chains.map((c) => [c.chainId, c]));

/** The registry entry for a chain id, or undefined when the chain is not supported. */
export function getChain(chainId: number): ChainInfo | undefined {
  return byId.get(chainId);
}

/** Chain ids started by `npm start`: the mainnets Across serves most, plus HyperEVM and HyperCore. */
export const DEFAULT_DEVNET_CHAINS: number[] = [1, 10, 137, 8453, 42161, 999, 1337];

/** Default devnet RPC port per chain (the README's services table lists them). */
export const DEFAULT_DEVNET_PORTS: Record<number, number> = {
  1: 8545,
  10: 8546,
  137: 8547,
  8453: 8548,
  42161: 8549,
  999: 8550,
  1337: 8551,
};

/** Interval-mining block time for the devnet: the chain's typical block time, at least 2 s. */
export function devnetBlockTime(chainId: number): number {
  const typical = getChain(chainId)?.blockTimeSec ?? 2;
  return Math.max(2, Math.ceil(typical));
}
