/**
 * `GET /chains`: the chains this service serves, shaped like the anchor's `/chains` (not in our spec, but the
 * app-sdk reads `spokePool` from it: `getSupportedChains({chainId: [...]})` sends `chainId` repeated).
 *
 * Filters (the anchor's): `chainId` (one or repeated), `inputTokenSymbol`, `outputTokenSymbol`, `omitTokens`.
 * `inputTokens`/`outputTokens` are the tokens of the enabled routes leaving/reaching the chain (the native coin
 * appears with the wrapped token's address, as in the route list). `publicRpcUrl` is the chain's RPC URL only
 * when it cannot carry a credential (a local/private host, or no path, query or user info); else "".
 * `explorerUrl` and `logoUrl` are "" (no explorer on the devnet); `spokePoolBlock` is 0 (deployed at genesis
 * on the devnet; not known for external chains).
 */
import { getChain } from "@platform/chains";
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { SpokeChain } from "../deployments.ts";
import type { RouteRecord } from "../quotes/enabledRoutes.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { quotesTag } from "./openapiTags.ts";
import { InvalidParamBody, UnauthorizedBody } from "./schemas.ts";

export const ChainsQuery = Type.Object({
  chainId: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
      maxItems: 100,
      description: "Only these chains (repeat the parameter for several).",
    }),
  ),
  inputTokenSymbol: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32, description: "Chains with this input token." }),
  ),
  outputTokenSymbol: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32, description: "Chains with this output token." }),
  ),
  omitTokens: Type.Optional(Type.Boolean({ description: "Return empty inputTokens/outputTokens." })),
});

const ChainToken = Type.Object({
  chainId: Type.Integer(),
  address: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  logoUrl: Type.String(),
});

export const ChainRecord = Type.Object({
  chainId: Type.Integer(),
  name: Type.String(),
  publicRpcUrl: Type.String(),
  explorerUrl: Type.String(),
  logoUrl: Type.String(),
  spokePool: Type.String(),
  spokePoolBlock: Type.Integer(),
  inputTokens: Type.Array(ChainToken),
  outputTokens: Type.Array(ChainToken),
});

type ChainTokenJson = {
  chainId: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  logoUrl: string;
};
type ChainJson = {
  chainId: number;
  name: string;
  publicRpcUrl: string;
  explorerUrl: string;
  logoUrl: string;
  spokePool: string;
  spokePoolBlock: number;
  inputTokens: ChainTokenJson[];
  outputTokens: ChainTokenJson[];
};

/** Token names by symbol (the devnet's tokens); other symbols are their own name. */
const TOKEN_NAMES: Readonly<Record<string, string>> = {
  ETH: "Ether",
  WETH: "Wrapped Ether",
  USDC: "USD Coin",
  USDT: "Tether USD",
  DAI: "Dai Stablecoin",
  WBTC: "Wrapped BTC",
};

export const tokenName = (symbol: string) => TOKEN_NAMES[symbol.toUpperCase()] ?? symbol;

/** The RPC URL when it cannot hold a secret (see the module comment), else "". */
export function publicRpcUrl(rpcUrl: string): string {
  try {
    const url = new URL(rpcUrl);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const local =
      host === "localhost" ||
      host === "::1" ||
      /^127\./.test(host) ||
      /^10\./.test(host) ||
      /^192\.168\./.test(host) ||
      /^172\.(1[6-9]|2\d|3[01])\./.test(host);
    if (local && !url.username && !url.password) return rpcUrl;
    const bare = !url.username && !url.password && !url.search && (url.pathname === "/" || url.pathname === "");
    return bare ? rpcUrl : "";
  } catch {
    return "";
  }
}

function tokensOf(chain: SpokeChain, routes: readonly RouteRecord[], side: "origin" | "destination"): ChainTokenJson[] {
  const seen = new Map<string, ChainTokenJson>();
  for (const r of routes) {
    const chainId = side === "origin" ? r.originChainId : r.destinationChainId;
    if (chainId !== chain.chainId) continue;
    const address = side === "origin" ? r.originToken : r.destinationToken;
    const symbol = side === "origin" ? r.originTokenSymbol : r.destinationTokenSymbol;
    const key = `${address.toLowerCase()}:${symbol}`;
    if (seen.has(key)) continue;
    const token = chain.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());
    seen.set(key, {
      chainId: chain.chainId,
      address,
      symbol,
      name: tokenName(symbol),
      decimals: token?.decimals ?? 18,
      logoUrl: "",
    });
  }
  return [...seen.values()];
}

/** The `/chains` body for the given filters. */
export function listChains(
  quotes: QuoteContext,
  q: { chainId?: number[]; inputTokenSymbol?: string; outputTokenSymbol?: string; omitTokens?: boolean },
): ChainJson[] {
  const routes = quotes.routes.routes;
  const hasSymbol = (tokens: ChainTokenJson[], symbol: string) =>
    tokens.some((t) => t.symbol.toUpperCase() === symbol.toUpperCase());
  return quotes.chains
    .filter((c) => !q.chainId || q.chainId.includes(c.chainId))
    .map((chain) => ({
      chain,
      inputTokens: tokensOf(chain, routes, "origin"),
      outputTokens: tokensOf(chain, routes, "destination"),
    }))
    .filter(
      ({ inputTokens, outputTokens }) =>
        (!q.inputTokenSymbol || hasSymbol(inputTokens, q.inputTokenSymbol)) &&
        (!q.outputTokenSymbol || hasSymbol(outputTokens, q.outputTokenSymbol)),
    )
    .map(({ chain, inputTokens, outputTokens }) => ({
      chainId: chain.chainId,
      name: getChain(chain.chainId)?.name ?? `Chain ${chain.chainId}`,
      publicRpcUrl: publicRpcUrl(chain.rpcUrl),
      explorerUrl: "",
      logoUrl: "",
      spokePool: chain.spokePool,
      spokePoolBlock: 0,
      inputTokens: q.omitTokens ? [] : inputTokens,
      outputTokens: q.omitTokens ? [] : outputTokens,
    }));
}

/** Optimism with its SpokePool and the WETH of its routes (an RPC URL that may carry a key is not shown). */
const WETH_ON_OPTIMISM = {
  chainId: 10,
  address: "0x4200000000000000000000000000000000000006",
  symbol: "WETH",
  name: "Wrapped Ether",
  decimals: 18,
  logoUrl: "",
};
const CHAIN_EXAMPLE = {
  chainId: 10,
  name: "Optimism",
  publicRpcUrl: "",
  explorerUrl: "",
  logoUrl: "",
  spokePool: "0x6f26Bf09B1C792e3228e5467807a900A503c0281",
  spokePoolBlock: 0,
  inputTokens: [WETH_ON_OPTIMISM],
  outputTokens: [WETH_ON_OPTIMISM],
};

export function registerChainsRoute(app: HttpServer, quotes: QuoteContext) {
  app.get(
    "/chains",
    {
      schema: {
        operationId: "getChains",
        tags: [quotesTag.name],
        summary: "Served chains and their SpokePools",
        description:
          "The chains with a SpokePool on this service, with the tokens of their enabled routes. The Across app-sdk " +
          "reads `spokePool` from here (`GET /chains?chainId=…`).",
        querystring: ChainsQuery,
        response: {
          200: Type.Array(ChainRecord, { examples: [[CHAIN_EXAMPLE]] }),
          400: InvalidParamBody("chainId.0", "must be integer"),
          401: UnauthorizedBody,
        },
      },
    },
    async (request) => listChains(quotes, request.query),
  );
}
