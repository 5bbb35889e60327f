/**
 * `GET /swap/sources`: the swap sources configured on the served chains (optionally one chain's), sorted and
 * de-duplicated. A served chain without sources, and an enumerated chain this service does not serve, answer
 * `[]` (the anchor answers a 500 for chains missing from its tables, reference §1.6).
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { swapSourcesOf, swapSourcesOfChains } from "../quotes/swapSources.ts";
import { swapsTag } from "./openapiTags.ts";
import { ChainIdParam, InvalidParamBody, UnauthorizedBody } from "./schemas.ts";

export function registerSwapSourcesRoute(app: HttpServer, quotes: QuoteContext) {
  app.get(
    "/swap/sources",
    {
      schema: {
        operationId: "getSwapSources",
        tags: [swapsTag.name],
        summary: "Swap sources per chain",
        description:
          "The names includeSources and excludeSources of /swap/approval take (a family name such as `uniswap` " +
          "matches its members).",
        querystring: Type.Object({ chainId: Type.Optional(ChainIdParam("Only this chain's sources.")) }),
        response: {
          200: Type.Array(Type.String(), { examples: [["uniswap_v2"]] }),
          400: InvalidParamBody("chainId", "must be equal to one of the allowed values"),
          401: UnauthorizedBody,
        },
      },
    },
    async (request, reply) => {
      const { chainId } = request.query;
      reply.header("cache-control", "max-age=60");
      if (chainId === undefined) return swapSourcesOfChains(quotes.chains);
      const chain = quotes.chains.find((c) => c.chainId === chainId);
      return chain ? swapSourcesOf(chain) : [];
    },
  );
}
