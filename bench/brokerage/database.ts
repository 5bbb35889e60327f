/**
 * The brokerage benchmark's database: `bench_brokerage` on the local PostgreSQL server, or a PGlite folder in
 * the temp directory. Each run migrates it and adds what it measures with the service's own code: a user
 * with a live and a paper account, a client, one bearer token, and the codes the token endpoint exchanges.
 */
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { prepareWithBrokerage } from "./brokerageSetup.ts";

export type { Driver } from "../lib/benchDatabase.ts";
export const REDIRECT_URI = "http://127.0.0.1:8765/callback";

const bench = benchDatabase("brokerage");
export const PGLITE_DIR = bench.pgliteDir;
export const benchDatabaseUrl = () => bench.url();
/** Creates `bench_brokerage` if needed; false when no PostgreSQL server answers. */
export const postgresAvailable = () => bench.preparePostgres();
export const openBenchDatabase = bench.open;

export interface BenchData {
  /** A bearer token of a live and a paper account. */
  accessToken: string;
  clientId: string;
  clientSecret: string;
  /** Unused codes of that client, user and redirect URI, one per token request. */
  codes: string[];
}

/** Migrates, then creates this run's user, client, token and `codeCount` codes through the service. */
export function prepareBenchData(driver: Driver, codeCount: number): Promise<BenchData> {
  const analyze = "ANALYZE brokerage.access_tokens; ANALYZE brokerage.authorization_codes; ANALYZE brokerage.accounts";
  return prepareWithBrokerage(
    () => openBenchDatabase(driver),
    analyze,
    async ({ config, services: { users, clients, codes, tokens } }) => {
      const user = await users.create({
        email: `bench-${Date.now()}@example.com`,
        password: "bench password",
        paperAccounts: 1,
        startingCash: config.brokerageStartingCash,
      });
      const client = await clients.create({ name: "Bench app", redirectUris: [REDIRECT_URI] });
      const live = user.accounts.find((a) => a.env === "live");
      const paper = user.accounts.find((a) => a.env === "paper");
      const issue = () =>
        codes.issue({
          clientId: client.client_id,
          userId: user.id,
          redirectUri: REDIRECT_URI,
          scopes: ["trading", "data"],
          liveAccountId: live?.id,
          paperAccountId: paper?.id,
        });
      const { access_token } = await tokens.exchangeCode({
        code: await issue(),
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
      });
      const issued: string[] = [];
      // Batches of concurrent inserts: PostgreSQL takes them in parallel, PGlite one after the other.
      while (issued.length < codeCount) {
        const batch = Math.min(100, codeCount - issued.length);
        issued.push(...(await Promise.all(Array.from({ length: batch }, issue))));
      }
      return {
        accessToken: access_token,
        clientId: client.client_id,
        clientSecret: client.client_secret,
        codes: issued,
      };
    },
  );
}
