/**
 * The platform the fuzzer runs against, as a user runs it: one real `platform start` (every service, the
 * devnet, ephemeral ports), every host's served `/openapi.json`, real credentials (API keys and brokerage
 * key pairs through the running platform's admin socket, where `platform keys` and `platform brokerage` go) and a little data, so
 * that path ids and parameters can reach real objects: a wearables user, resting brokerage orders and a
 * watchlist on both trading hosts, and the devnet's tokens and accounts for crosschain parameters.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DevnetManifest } from "@platform/chains";
import { callAdmin } from "../../packages/platform/src/admin/adminSocket.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  startPlatformProcess,
} from "../support/platformProcess.ts";
import type { FuzzContext } from "./fuzzCase.ts";
import { type OpenApiDocument, type Operation, operationsOf } from "./openapiOperations.ts";
import type { KnownValues } from "./validValues.ts";

export interface FuzzedHost {
  /** As the start banner names it: `wearables`, `brokerage paper`, … */
  name: string;
  origin: string;
  operations: Operation[];
  context: FuzzContext;
}

export interface FuzzedPlatform {
  hosts: FuzzedHost[];
  stop(): Promise<void>;
}

const DEVNET_CHAINS = [1, 10, 137, 8453, 42161, 999, 1337];

/** Every base URL of the start banner, by its service name (`brokerage paper`, …), as an origin. */
function originsOf(platform: PlatformProcess): Record<string, string> {
  const origins: Record<string, string> = {};
  for (const m of platform.output().matchAll(/│\s*([a-z]+(?: [a-z]+)?)\s*│\s*(http:\/\/[^\s│]+)\s*│/g)) {
    origins[m[1] as string] = new URL(m[2] as string).origin;
  }
  return origins;
}

/**
 * Asks the running platform's admin socket, as `platform keys` and `platform brokerage` do (without a
 * `platform` process per call: each loads every service's modules, about 20 s on a busy CI machine).
 */
async function admin<T>(dataDir: string, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callAdmin<T>(dataDir, method, path, body);
  if (answer === undefined) throw new Error(`the admin socket did not answer ${method} ${path}`);
  return answer;
}

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A resting limit order (far under the market) and a watchlist, on one trading host. */
async function seedTradingHost(origin: string, headers: Record<string, string>, env: string): Promise<KnownValues> {
  const clientOrderId = `fuzz-seed-${env}`;
  const order = await postJson(`${origin}/v2/orders`, headers, {
    symbol: "AAPL",
    qty: "1",
    side: "buy",
    type: "limit",
    limit_price: "1",
    time_in_force: "gtc",
    client_order_id: clientOrderId,
  });
  const watchlist = await postJson(`${origin}/v2/watchlists`, headers, { name: `fuzz ${env}`, symbols: ["AAPL"] });
  return {
    order_id: [order.id],
    client_order_id: [clientOrderId],
    watchlist_id: [watchlist.id],
    name: [`fuzz ${env}`],
  };
}

export async function startFuzzedPlatform(): Promise<FuzzedPlatform> {
  const { env, remove } = await createPlatformEnv("fuzz", {
    ...EPHEMERAL_PORTS,
    DEVNET_CHAINS: DEVNET_CHAINS.join(","),
    DEVNET_PORTS: DEVNET_CHAINS.map((id) => `${id}=0`).join(","),
    // The fuzzer sends thousands of requests with one key pair: the anchor's 200 a minute would answer 429
    // to nearly all of them and hide every route behind the limiter.
    BROKERAGE_RATE_LIMIT: "1000000",
    // Likewise its hundreds of wrong credentials from one address would soon be answered 429 before the key is
    // even read (every service's failed-credentials limit), hiding the routes' own answers.
    AUTH_FAILURE_LIMIT: "1000000",
    ...(process.env.FUZZ_BACKFILL_DAYS ? { BROKERAGE_DATA_BACKFILL_DAYS: process.env.FUZZ_BACKFILL_DAYS } : {}),
    LOG_LEVEL: "warn",
  });
  let platform: PlatformProcess | undefined;
  try {
    platform = await startPlatformProcess(env, 120_000);
    const origins = originsOf(platform);
    const manifest = JSON.parse(readFileSync(join(env.DATA_DIR as string, "devnet.json"), "utf8")) as DevnetManifest;

    const dataDir = env.DATA_DIR as string;
    const chainstatsKey = await admin<{ key: string }>(dataDir, "POST", "/keys", {
      service: "chainstats",
      name: "fuzz",
      plan: "unlimited",
    });
    const { result: users } = await admin<{
      result: { email: string; accounts: { env: string; account_number: string }[] }[];
    }>(dataDir, "POST", "/services/brokerage/commands/listUsers", {});
    const demo = users.find((u) => u.email === "demo@example.com");
    const accountOf = (kind: string) => demo?.accounts.find((a) => a.env === kind)?.account_number as string;
    const [livePair, paperPair] = await Promise.all(
      ["live", "paper"].map(async (kind) => {
        const { result } = await admin<{ result: { key_id: string; secret_key: string } }>(
          dataDir,
          "POST",
          "/services/brokerage/commands/createKeyPair",
          { account: accountOf(kind) },
        );
        return result;
      }),
    );
    const pairSecrets = (pair: { key_id: string; secret_key: string } | undefined) => ({
      apiKeyId: pair?.key_id as string,
      apiSecretKey: pair?.secret_key as string,
    });
    const pairHeaders = (pair: { key_id: string; secret_key: string } | undefined) => ({
      "APCA-API-KEY-ID": pair?.key_id as string,
      "APCA-API-SECRET-KEY": pair?.secret_key as string,
    });

    const wearablesKey = platform.demoKeys.wearables as string;
    const crosschainKey = platform.demoKeys.crosschain as string;
    const foreignKeys = [wearablesKey, crosschainKey, chainstatsKey.key, livePair?.key_id as string];

    const user = await postJson(
      `${origins.wearables}/api/v1/users`,
      { "X-Service-API-Key": wearablesKey },
      { first_name: "Fuzz", email: "fuzz@example.com" },
    );
    const [live, paper] = await Promise.all([
      seedTradingHost(origins.brokerage as string, pairHeaders(livePair), "live"),
      seedTradingHost(origins["brokerage paper"] as string, pairHeaders(paperPair), "paper"),
    ]);

    const chain = manifest.chains[0];
    const tokens = chain?.tokens.map((t) => t.address) ?? [];
    const chainIds = manifest.chains.map((c) => c.chainId);
    const userAddress = manifest.accounts.users[0]?.address;
    const crosschainKnown: KnownValues = {
      inputToken: tokens,
      outputToken: tokens,
      originToken: tokens,
      destinationToken: tokens,
      token: tokens,
      originChainId: chainIds,
      destinationChainId: chainIds,
      chainId: chainIds,
      depositor: [userAddress],
      recipient: [userAddress],
      refundAddress: [userAddress],
      amount: ["1000000", "100000000000000000"],
    };
    const marketKnown: KnownValues = {
      symbol: ["AAPL", "SPY"],
      symbols: ["AAPL", "AAPL,MSFT", "BTC/USD"],
      symbol_or_asset_id: ["AAPL", "BTC/USD"],
      loc: ["us"],
    };

    const hostContexts: Record<string, FuzzContext> = {
      wearables: {
        secrets: { ServiceApiKey: wearablesKey, OpenWearablesApiKey: wearablesKey },
        foreignKeys,
        known: { user_id: [user.id] },
      },
      crosschain: { secrets: { bearerAuth: crosschainKey }, foreignKeys, known: crosschainKnown },
      "brokerage auth": { secrets: {}, foreignKeys, known: {} },
      // The sandbox vendor's data API wants its own access tokens: fuzzed without one.
      "wearables sandbox": { secrets: {}, foreignKeys, known: {} },
      brokerage: { secrets: pairSecrets(livePair), foreignKeys, known: { ...marketKnown, ...live } },
      "brokerage paper": { secrets: pairSecrets(paperPair), foreignKeys, known: { ...marketKnown, ...paper } },
      "brokerage data": { secrets: pairSecrets(paperPair), foreignKeys, known: marketKnown },
      chainstats: {
        secrets: { apikey: chainstatsKey.key },
        foreignKeys,
        known: { chainid: chainIds, module: ["stats"], startdate: ["2020-01-01"], enddate: ["2100-01-01"] },
      },
    };

    const hosts: FuzzedHost[] = [];
    for (const [name, context] of Object.entries(hostContexts)) {
      const origin = origins[name];
      if (!origin) throw new Error(`no ${name} host in the start banner:\n${platform.output()}`);
      const response = await fetch(`${origin}/openapi.json`);
      if (response.status !== 200) throw new Error(`${origin}/openapi.json answered ${response.status}`);
      const document = (await response.json()) as OpenApiDocument;
      hosts.push({ name, origin, operations: operationsOf(document, name, origin), context });
    }
    const running = platform;
    return {
      hosts,
      async stop() {
        if (running.child.exitCode === null) await running.stop();
        await remove();
      },
    };
  } catch (error) {
    if (platform?.child.exitCode === null) await platform.stop();
    await remove();
    throw error;
  }
}
