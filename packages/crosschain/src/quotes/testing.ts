/**
 * Test helper (tests only: it starts a devnet through `@platform/chains/testing`): a devnet, the crosschain
 * service on it (`startTestService`, the devnet relayer as the service's relayer) and its quote services, warm.
 */
import type { DevnetFixture } from "@platform/chains/testing";
import { startDevnetFixture } from "@platform/chains/testing";
import type { ChainEndpoint, Config } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { type Crosschain, crosschainService } from "../index.ts";
import { contextChains, quotesWarm } from "../testing/spokePoolActions.ts";
import type { QuoteContext } from "./quoteContext.ts";

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of any endpoint, checked by each test
type Json = any;

export interface QuoteTestService {
  devnet: DevnetFixture;
  service: TestService<Crosschain>;
  quotes: QuoteContext;
  chains: ChainEndpoint[];
  /** GET `${url}/api${path}` with the test key; returns status and parsed body. */
  get(
    path: string,
    query?: Record<string, string | number | boolean | undefined>,
    apiKey?: string | null,
  ): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

export async function startQuoteTestService(opts: {
  chainIds: number[];
  /** Routes JSON file (CROSSCHAIN_ROUTES_FILE). */
  routesFile?: string;
  config?: Partial<Config>;
  devnet?: DevnetFixture;
}): Promise<QuoteTestService> {
  const devnet = opts.devnet ?? (await startDevnetFixture({ chainIds: opts.chainIds }));
  const chains = contextChains(devnet);
  const service = await startTestService(crosschainService, {
    chains,
    config: {
      crosschainRelayerKey: devnet.accounts.relayer.privateKey,
      crosschainRoutesFile: opts.routesFile,
      ...opts.config,
    },
  });
  const { quotes } = service.instance;
  await quotesWarm(quotes);
  let closed = false;
  return {
    devnet,
    service,
    quotes,
    chains,
    async get(path, query = {}, apiKey = service.apiKey) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
      const qs = params.toString();
      const res = await fetch(`${service.url}/api${path}${qs ? `?${qs}` : ""}`, {
        headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      if (closed) return;
      closed = true;
      await service.close();
      if (!opts.devnet) await devnet.stop().catch(() => undefined);
    },
  };
}
