/** `GET /v2/chainlist`: the chains this deployment indexes, in Etherscan's chain list shape. */
import { getChain } from "@platform/chains";
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { BlocksRepository } from "../store/blocksRepository.ts";
import { statsTag } from "./openapiTags.ts";

const COMMENTS = "Chains indexed by this deployment. Available Status codes are (0)=Offline, (1)=Ok, (2)=Degraded";

const ChainList = Type.Object(
  {
    comments: Type.String(),
    totalcount: Type.Integer(),
    result: Type.Array(
      Type.Object({
        chainname: Type.String(),
        chainid: Type.String(),
        blockexplorer: Type.String(),
        apiurl: Type.String(),
        status: Type.Integer(),
        comment: Type.String(),
      }),
    ),
  },
  {
    examples: [
      {
        comments: COMMENTS,
        totalcount: 2,
        result: [
          {
            chainname: "Ethereum",
            chainid: "1",
            blockexplorer: "",
            apiurl: "http://127.0.0.1:8300/v2/api?chainid=1",
            status: 1,
            comment: "120000 blocks indexed from block 0",
          },
          {
            chainname: "Base",
            chainid: "8453",
            blockexplorer: "",
            apiurl: "http://127.0.0.1:8300/v2/api?chainid=8453",
            status: 2,
            comment: "indexing has not started",
          },
        ],
      },
    ],
  },
);

export function registerChainList(app: HttpServer, deps: { repository: BlocksRepository; chainIds: () => number[] }) {
  app.get(
    "/v2/chainlist",
    {
      schema: {
        operationId: "getChainlist",
        tags: [statsTag.name],
        summary: "Supported chains",
        description:
          "The chains this deployment indexes, each with the URL of its statistics; status 1 = indexed, " +
          "2 = indexing has not started. Needs no key.",
        security: [],
        response: { 200: ChainList },
      },
    },
    async (request) => {
      const origin = `${request.protocol}://${request.host}`;
      const indexed = new Map((await deps.repository.checkpoints()).map((c) => [Number(c.chain_id), c]));
      const result = deps.chainIds().map((chainId) => {
        const cp = indexed.get(chainId);
        const blocks = cp ? BigInt(cp.next_block) - BigInt(cp.start_block) : 0n;
        return {
          chainname: getChain(chainId)?.name ?? `Chain ${chainId}`,
          chainid: String(chainId),
          blockexplorer: "",
          apiurl: `${origin}/v2/api?chainid=${chainId}`,
          // 1 = Ok (indexed), 2 = Degraded (not indexed yet)
          status: cp ? 1 : 2,
          comment: cp ? `${blocks} blocks indexed from block ${cp.start_block}` : "indexing has not started",
        };
      });
      return {
        comments: COMMENTS,
        totalcount: result.length,
        result,
      };
    },
  );
}
