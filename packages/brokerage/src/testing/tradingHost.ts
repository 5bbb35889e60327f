/**
 * Test fixture of the trading tests: the brokerage started as `platform start` starts it (every host on an
 * ephemeral port, a fresh database) with its exchange writer running, a user with a live and a paper account,
 * a key pair for each, and a small client for the trading API.
 */
import type { Config, Database, JobStatus } from "@platform/kernel";
import { startTestService } from "@platform/kernel/testing";
import { type Brokerage, brokerageService } from "../index.ts";
import { createUsersRepository, type UserWithAccounts } from "../store/usersRepository.ts";
import { accountsOf } from "./oauthFixture.ts";

/** A decoded JSON answer (tests read its fields freely). */
// biome-ignore lint/suspicious/noExplicitAny: test answers are asserted field by field.
export type JsonBody = any;

export interface TradingClient {
  accountId: string;
  keyId: string;
  secret: string;
  /** `fetch` on this account's host with its key pair; answers `{ status, body }`. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: JsonBody }>;
}

export interface TradingHost {
  urls: Record<string, string>;
  db: Database;
  instance: Brokerage;
  user: UserWithAccounts;
  live: TradingClient;
  paper: TradingClient;
  /** Another user with its own live and paper accounts. */
  createTrader(startingCash?: string): Promise<{ live: TradingClient; paper: TradingClient }>;
  /** Polls the order until `done` holds (or throws after `timeoutMs`). */
  waitForOrder(
    client: TradingClient,
    id: string,
    done: (order: JsonBody) => boolean,
    timeoutMs?: number,
  ): Promise<JsonBody>;
  /** The brokerage's background jobs as `platform status` shows them (`exchange`, `equitySnapshots`, `marketData`). */
  jobStatus(): JobStatus;
  close(): Promise<void>;
}

export async function startTradingHost({ config = {} }: { config?: Partial<Config> } = {}): Promise<TradingHost> {
  const s = await startTestService(brokerageService, {
    // No history backfill: the market data recorder records from the start (a day of bars costs seconds of CPU).
    config: { brokerageRateLimit: 100_000, brokerageDataBackfillDays: 0, ...config },
  });
  const jobs = await s.instance.startJobs?.();
  const { services } = s.instance;
  const users = createUsersRepository(s.database.db);
  let count = 0;

  async function clientFor(accountId: string, env: "live" | "paper"): Promise<TradingClient> {
    const { key_id: keyId, secret_key: secret } = await services.keyPairs.create({ accountId });
    const origin = env === "live" ? (s.urls[""] as string) : (s.urls.paper as string);
    return {
      accountId,
      keyId,
      secret,
      async call(method, path, body) {
        const response = await fetch(new URL(path, origin), {
          method,
          headers: {
            "apca-api-key-id": keyId,
            "apca-api-secret-key": secret,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
    };
  }

  async function createTrader(startingCash = "100000") {
    const user = await users.insertWithAccounts({
      email: `trader${++count}-${Date.now()}@example.com`,
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
      startingCash,
      paperAccounts: 1,
    });
    const { live, paper } = accountsOf(user);
    return { user, live: await clientFor(live.id, "live"), paper: await clientFor(paper[0].id, "paper") };
  }

  const first = await createTrader();
  return {
    urls: s.urls,
    db: s.database.db,
    instance: s.instance,
    user: first.user,
    live: first.live,
    paper: first.paper,
    createTrader: async (cash) => {
      const t = await createTrader(cash);
      return { live: t.live, paper: t.paper };
    },
    async waitForOrder(client, id, done, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await client.call("GET", `/v2/orders/${id}`);
        if (done(body)) return body;
        if (Date.now() > until)
          throw new Error(`order ${id} did not reach the expected state: ${JSON.stringify(body)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    jobStatus: () => jobs?.status?.() ?? {},
    async close() {
      await jobs?.stop();
      await s.close();
    },
  };
}
