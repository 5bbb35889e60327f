/** Chain statistics through a client generated from its served document: the chain list, daily statistics. */
import createClient, { type Middleware } from "openapi-fetch";
import { expect } from "vitest";
import type { ChainstatsFlowContext } from "./flowContext.ts";
import type { paths } from "./generated/chainstats.ts";

/** The key travels in the query (the document's `apikey` security scheme), as Etherscan's clients send it. */
const withApiKey = (apikey: string): Middleware => ({
  onRequest({ request }) {
    const url = new URL(request.url);
    url.searchParams.set("apikey", apikey);
    return new Request(url, request);
  },
});

export async function run(ctx: ChainstatsFlowContext): Promise<void> {
  const client = createClient<paths>({ baseUrl: ctx.origin });
  client.use(withApiKey(ctx.apiKey), ctx.checkAnswers());

  const chains = await client.GET("/v2/chainlist");
  expect(chains.data?.result.map((c) => c.chainid)).toContain(String(ctx.chainId));
  const range = { startdate: "2000-01-01", enddate: "2100-01-01" };
  for (const action of ["dailyblkcount", "dailyavggaslimit", "dailytx"] as const) {
    // Only some of the parameters: sort has a default. Until the indexer stored a block: "No records found".
    const ask = () =>
      client.GET("/v2/api", { params: { query: { chainid: String(ctx.chainId), module: "stats", action, ...range } } });
    let stats = await ask();
    for (let i = 0; i < 100 && stats.data?.message !== "OK"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      stats = await ask();
    }
    expect(stats.data?.message).toBe("OK");
  }
  const stranger = createClient<paths>({ baseUrl: ctx.origin });
  stranger.use(withApiKey("nope"), ctx.checkAnswers());
  const refused = await stranger.GET("/v2/api", {
    params: { query: { chainid: String(ctx.chainId), module: "stats", action: "dailytx", ...range } },
  });
  expect(refused.data).toEqual({ status: "0", message: "NOTOK", result: "Invalid API Key" });
}
