/** Crosschain through a client generated from its served document: routes, chains, fees, a deposit's status. */
import createClient from "openapi-fetch";
import { expect } from "vitest";
import type { CrosschainFlowContext } from "./flowContext.ts";
import type { paths } from "./generated/crosschain.ts";

/** Asks `call` again while it answers 503 (chain state not warm yet) or `retry` says so, up to 30 s. */
async function until<T extends { response: Response }>(call: () => Promise<T>, retry: (r: T) => boolean = () => false) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await call();
    if ((result.response.status !== 503 && !retry(result)) || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The chain ids the document enumerates. */
type ChainId = NonNullable<NonNullable<paths["/api/available-routes"]["get"]["parameters"]["query"]>["originChainId"]>;

export async function run(ctx: CrosschainFlowContext): Promise<void> {
  const client = createClient<paths>({ baseUrl: ctx.origin, headers: { authorization: `Bearer ${ctx.apiKey}` } });
  client.use(ctx.checkAnswers());
  const route = {
    ...ctx.route,
    originChainId: ctx.route.originChainId as ChainId,
    destinationChainId: ctx.route.destinationChainId as ChainId,
  };

  const routes = await client.GET("/api/available-routes", {
    params: { query: { originChainId: route.originChainId, destinationChainId: route.destinationChainId } },
  });
  expect(routes.data?.some((r) => r.originToken.toLowerCase() === route.inputToken.toLowerCase())).toBe(true);
  const chains = await client.GET("/api/chains");
  expect(chains.data?.map((c) => c.chainId)).toContain(route.originChainId);

  const fees = await until(() =>
    client.GET("/api/suggested-fees", {
      params: {
        query: {
          amount: "25000000",
          inputToken: route.inputToken,
          outputToken: route.outputToken,
          originChainId: route.originChainId,
          destinationChainId: route.destinationChainId,
        },
      },
    }),
  );
  expect(fees.response.status).toBe(200);
  expect(fees.data?.totalRelayFee.total).toMatch(/^\d+$/);

  const approval = await until(() =>
    client.GET("/api/swap/approval", {
      params: {
        query: {
          amount: "25000000",
          inputToken: route.inputToken,
          outputToken: route.outputToken,
          originChainId: route.originChainId,
          destinationChainId: route.destinationChainId,
          depositor: ctx.depositor,
        },
      },
    }),
  );
  expect(approval.data?.swapTx.to).toMatch(/^0x[0-9a-fA-F]{40}$/);

  // A deposit made with viem at the quoted output: indexed, then filled by our relayer.
  const txHash = await ctx.deposit({ inputAmount: "25000000", outputAmount: fees.data?.outputAmount as string });
  const status = await until(
    () =>
      client.GET("/api/deposit/status", {
        params: { query: { originChainId: route.originChainId, depositTxnRef: txHash } },
      }),
    (r) => r.data?.status !== "filled",
  );
  expect(status.data?.status).toBe("filled");
}
