import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type Transport,
  type WalletClient,
  webSocket,
} from "viem";
import { getChain } from "./registry.ts";

/** A viem chain definition for a chain id served at rpcUrl (registry facts where the chain is known). */
export function viemChain(chainId: number, rpcUrl: string): Chain {
  const info = getChain(chainId);
  const isWs = /^wss?:/i.test(rpcUrl);
  return defineChain({
    id: chainId,
    name: info?.name ?? `Chain ${chainId}`,
    nativeCurrency: info?.nativeCurrency ?? { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: isWs ? { http: [], webSocket: [rpcUrl] } : { http: [rpcUrl] } },
    testnet: info?.testnet,
  });
}

/** viem transport chosen by URL scheme: ws(s):// gets a WebSocket transport, anything else HTTP. */
export function transportFor(rpcUrl: string): Transport {
  if (/^wss?:/i.test(rpcUrl)) return webSocket(rpcUrl);
  if (/^https?:/i.test(rpcUrl)) return http(rpcUrl);
  throw new Error(`Unsupported RPC URL scheme: ${rpcUrl} (expected http(s):// or ws(s)://)`);
}

/** A viem public client for any chain, local devnet or external RPC (http or ws by URL scheme). */
export function createChainClient(opts: { chainId: number; rpcUrl: string }): PublicClient {
  return createPublicClient({
    chain: viemChain(opts.chainId, opts.rpcUrl),
    transport: transportFor(opts.rpcUrl),
  }) as PublicClient;
}

/** A viem wallet client signing locally with `account` (e.g. a devnet key from the manifest). */
export function createChainWalletClient(opts: {
  chainId: number;
  rpcUrl: string;
  account: Account;
}): WalletClient<Transport, Chain, Account> {
  return createWalletClient({
    chain: viemChain(opts.chainId, opts.rpcUrl),
    transport: transportFor(opts.rpcUrl),
    account: opts.account,
  });
}
