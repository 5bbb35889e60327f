/**
 * `GET /swap/chains`: the chains swaps run on, as the anchor lists them (`chainId`, `name`, `publicRpcUrl`,
 * `explorerUrl`, `logoUrl`; no parameters): every chain this service serves, with the same values as `/chains`.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { listChains } from "./chains.ts";
import { swapsTag } from "./openapiTags.ts";
import { UnauthorizedBody } from "./schemas.ts";

const SwapChain = Type.Object({
  chainId: Type.Integer(),
  name: Type.String(),
  publicRpcUrl: Type.String(),
  explorerUrl: Type.String(),
  logoUrl: Type.String(),
});

const EXAMPLE = [
  { chainId: 10, name: "Optimism", publicRpcUrl: "http://127.0.0.1:8546", explorerUrl: "", logoUrl: "" },
  { chainId: 8453, name: "Base", publicRpcUrl: "http://127.0.0.1:8547", explorerUrl: "", logoUrl: "" },
];

export function registerSwapChainsRoute(app: HttpServer, quotes: QuoteContext) {
  app.get(
    "/swap/chains",
    {
      schema: {
        operationId: "getSwapChains",
        tags: [swapsTag.name],
        summary: "Chains swaps run on",
        description:
          "Every chain this service serves (a SpokePool and its tokens). `publicRpcUrl` is the chain's RPC URL " +
          'only when it cannot carry a credential, else ""; `explorerUrl` and `logoUrl` are "" on the devnet.',
        response: {
          200: Type.Array(SwapChain, { examples: [EXAMPLE] }),
          401: UnauthorizedBody,
        },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "max-age=300");
      return listChains(quotes, { omitTokens: true }).map(({ chainId, name, publicRpcUrl, explorerUrl, logoUrl }) => ({
        chainId,
        name,
        publicRpcUrl,
        explorerUrl,
        logoUrl,
      }));
    },
  );
}
