/**
 * `GET /swap/tokens`: the tokens swaps take and give, as the anchor lists them (`chainId`, `address`, `name`,
 * `symbol`, `decimals`, `logoUrl`, `priceUsd`; `chainId` filters, one or repeated). On each served chain: the
 * native coin (the zero address, as the anchor lists it), then every token of the chain that is on an enabled
 * route or in one of the chain's pools the swap router reads (so it can reach a bridgeable token). `priceUsd`
 * is the price the fee quote's USD amounts use (the chain-state cache's, from the chain's pools), null while
 * the chain's state is not read yet or the token has no price.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { formatUnits, zeroAddress } from "viem";
import { wrappedNativeOf } from "../quotes/enabledRoutes.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { tokenName } from "./chains.ts";
import { swapsTag } from "./openapiTags.ts";
import { InvalidParamBody, UnauthorizedBody } from "./schemas.ts";

const SwapTokensQuery = Type.Object({
  chainId: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
      maxItems: 100,
      description: "Only these chains (repeat the parameter for several).",
    }),
  ),
});

const SwapToken = Type.Object({
  chainId: Type.Integer(),
  address: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  logoUrl: Type.String(),
  priceUsd: Type.Union([Type.String(), Type.Null()]),
});

type SwapTokenJson = {
  chainId: number;
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  logoUrl: string;
  priceUsd: string | null;
};

const EXAMPLE = [
  {
    chainId: 10,
    address: zeroAddress,
    name: "Ether",
    symbol: "ETH",
    decimals: 18,
    logoUrl: "",
    priceUsd: "3000",
  },
  {
    chainId: 10,
    address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    name: "USD Coin",
    symbol: "USDC",
    decimals: 6,
    logoUrl: "",
    priceUsd: "1",
  },
];

const usd = (price: bigint | undefined) => (price === undefined ? null : formatUnits(price, 18));

/** The `/swap/tokens` body (see the module comment). */
export function listSwapTokens(quotes: QuoteContext, chainIds?: readonly number[]): SwapTokenJson[] {
  const snapshot = quotes.cache.snapshot();
  const out: SwapTokenJson[] = [];
  for (const chain of quotes.chains) {
    if (chainIds && !chainIds.includes(chain.chainId)) continue;
    const state = snapshot.chains.get(chain.chainId);
    const onRoute = new Set(
      quotes.routes.routes.flatMap((r) => [
        ...(r.originChainId === chain.chainId ? [r.originToken.toLowerCase()] : []),
        ...(r.destinationChainId === chain.chainId ? [r.destinationToken.toLowerCase()] : []),
      ]),
    );
    const native = wrappedNativeOf(chain);
    if (native) {
      out.push({
        chainId: chain.chainId,
        address: zeroAddress,
        name: tokenName(native.nativeSymbol),
        symbol: native.nativeSymbol,
        decimals: 18,
        logoUrl: "",
        priceUsd: usd(state?.prices.nativeUsd),
      });
    }
    for (const token of chain.tokens) {
      const key = token.address.toLowerCase();
      if (!onRoute.has(key) && !state?.pools.byToken.get(key)?.length) continue;
      out.push({
        chainId: chain.chainId,
        address: token.address,
        name: tokenName(token.symbol),
        symbol: token.symbol,
        decimals: token.decimals,
        logoUrl: "",
        priceUsd: usd(state?.prices.usd.get(key)),
      });
    }
  }
  return out;
}

export function registerSwapTokensRoute(app: HttpServer, quotes: QuoteContext) {
  app.get(
    "/swap/tokens",
    {
      schema: {
        operationId: "getSwapTokens",
        tags: [swapsTag.name],
        summary: "Tokens swaps take and give",
        description:
          "Per served chain: the native coin (zero address), then the chain's tokens that are on an enabled route or " +
          "in a pool the swap router reads. priceUsd: the price the fee quote's USD amounts use (from the chain's " +
          "pools), or null when unknown.",
        querystring: SwapTokensQuery,
        response: {
          200: Type.Array(SwapToken, { examples: [EXAMPLE] }),
          400: InvalidParamBody("chainId.0", "must be integer"),
          401: UnauthorizedBody,
        },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "max-age=60");
      return listSwapTokens(quotes, request.query.chainId);
    },
  );
}
