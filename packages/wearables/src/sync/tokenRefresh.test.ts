/**
 * Token refresh across instances, against the sandbox vendor, whose refresh tokens rotate and are single-use
 * (a second refresh with the same token answers 400 invalid_grant):
 * - two vendor sessions of two "instances" (their own stores, leases and clients on one database) that find
 *   the connection's token expired, or get a 401, at once: exactly one refresh reaches the vendor, the other
 *   session adopts the stored tokens, both read data, the connection stays active;
 * - a refresh whose answer is lost (the process dies after the vendor rotated the token, before storing it)
 *   leaves its marker: the next refresh is refused and the sync revokes the connection with the reason
 *   `refresh_interrupted`, where a refusal without the marker stays `refresh_failed`.
 * On PGlite by default, on PostgreSQL with TEST_DATABASE_URL.
 */
import {
  createConfiguredSecretBox,
  createLeases,
  createLogger,
  createMemoryRateCounter,
  type Database,
  kernelMigrations,
  type Leases,
  loadConfig,
  migrate,
} from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { createVendorDirectory, SANDBOX_CLIENT } from "../providers/registry.ts";
import { startSandboxCloud } from "../sandbox/sandboxCloud.ts";
import type { VendorCloud } from "../sandbox/vendorCloud.ts";
import { createConnectionsStore } from "../store/connectionsRepository.ts";
import { drainQueue, waitFor } from "../testing/jobWorkers.ts";
import { allowOnStandIn } from "../testing/vendorHarness.ts";
import { createProvidersModule } from "./providersModule.ts";
import { SYNC_QUEUE } from "./syncJob.ts";
import { createVendorSessions, type VendorSession } from "./vendorSession.ts";

const logger = createLogger({ level: "silent" });
const config = loadConfig({ env: {}, overrides: { logLevel: "silent", wearablesHistoricalDaysOnConnect: 0 } });
const TOKEN_PATH = "/oauth/token";
let database: TestDatabase;
let db: Database;
let cloud: VendorCloud;

beforeAll(async () => {
  cloud = await startSandboxCloud({ clients: { [SANDBOX_CLIENT.clientId]: SANDBOX_CLIENT.clientSecret } });
  database = await createTestDatabase();
  db = database.db;
  await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
}, 120_000);
afterAll(async () => {
  await database?.drop();
  await cloud?.close();
});

const providersOn = () =>
  createProvidersModule({
    config,
    db,
    logger,
    originOf: (host) => (host === "sandbox" ? cloud.origin : "http://127.0.0.1:1"),
  });

/** A user connected to the sandbox account `login` through the OAuth flow; answers the connection's id. */
async function connectedUser(login: string): Promise<string> {
  const [user] = await db.query<{ id: string }>("INSERT INTO wearables.users (email) VALUES ($1) RETURNING id", [
    `${login}@example.com`,
  ]);
  const providers = providersOn();
  try {
    const { authorization_url } = await providers.connections.authorize("sandbox", user?.id as string, null);
    const back = await allowOnStandIn(authorization_url, login);
    await providers.connections.callback("sandbox", { code: back.get("code"), state: back.get("state") });
  } finally {
    await providers.close();
  }
  const [row] = await db.query<{ id: string }>(
    "SELECT id FROM wearables.user_connections WHERE user_id = $1 AND provider = 'sandbox' AND status = 'active'",
    [user?.id],
  );
  return row?.id as string;
}

/** Leases that count the acquisitions refused (another holder had the lease): a session waiting for the lock. */
function countingLeases(seen: { refused: number }): Leases {
  const leases = createLeases({ db });
  return {
    ...leases,
    async acquire(parameters) {
      const lease = await leases.acquire(parameters);
      if (!lease) seen.refused += 1;
      return lease;
    },
  };
}

/**
 * One instance's vendor sessions: its own store, leases and rate counter on the shared database. Its token
 * requests wait until the other instance has waited for the lock, or sent a token request of its own: the
 * two truly contend, and a second refresh (the bug) reaches the vendor instead of hanging here.
 */
function instance(other: () => { refused: number; tokenRequests: number }) {
  const seen = { refused: 0, tokenRequests: 0 };
  const sessions = createVendorSessions({
    directory: createVendorDirectory({ config, sandboxOrigin: () => cloud.origin }),
    secrets: createConfiguredSecretBox(config),
    store: createConnectionsStore(db),
    leases: countingLeases(seen),
    counter: createMemoryRateCounter(),
    async fetch(input, init) {
      if (String(input).endsWith(TOKEN_PATH)) {
        await waitFor("the other instance to wait for the lock", () => {
          const o = other();
          return o.refused > 0 || o.tokenRequests > 0;
        });
        seen.tokenRequests += 1;
      }
      return fetch(input, init);
    },
  });
  return { sessions, seen };
}

function twoInstances() {
  const a: ReturnType<typeof instance> = instance(() => b.seen);
  const b: ReturnType<typeof instance> = instance(() => a.seen);
  return [a, b] as const;
}

const tokenRequests = () => cloud.hits.get(TOKEN_PATH) ?? 0;

const connectionRow = async (id: string) =>
  (
    await db.query<{ status: string; status_reason: string | null; refresh_started_at: Date | null }>(
      "SELECT status, status_reason, refresh_started_at FROM wearables.user_connections WHERE id = $1",
      [id],
    )
  )[0];

/** A page of workouts through the session's client: the session's token works at the vendor. */
const readWorkouts = (s: VendorSession) =>
  s.adapter.fetchPage({
    client: s.client,
    urls: s.urls,
    kind: "workouts",
    window: { start: Date.now() - 7 * 86_400_000, end: Date.now() },
    cursor: null,
    providerUserId: null,
  });

async function openConnection(id: string) {
  const connection = await createConnectionsStore(db).get(id);
  if (!connection) throw new Error("no connection");
  return connection;
}

describe("concurrent refresh of one connection", () => {
  it("expired token, two instances at once: one refresh at the vendor, both sessions work, still active", async () => {
    const id = await connectedUser("refresh-race-expired");
    // Expired for us and for the vendor: both sessions refresh ahead of their first request.
    await db.query(
      "UPDATE wearables.user_connections SET token_expires_at = now() - interval '1 minute' WHERE id = $1",
      [id],
    );
    cloud.expireAccessTokens();
    const connection = await openConnection(id);
    const before = tokenRequests();
    const [a, b] = twoInstances();

    const [sa, sb] = await Promise.all([a.sessions.open(connection), b.sessions.open(connection)]);

    expect(tokenRequests() - before).toBe(1);
    expect(a.seen.refused + b.seen.refused).toBeGreaterThan(0);
    await expect(readWorkouts(sa)).resolves.toHaveProperty("records");
    await expect(readWorkouts(sb)).resolves.toHaveProperty("records");
    expect(tokenRequests() - before).toBe(1);
    expect(await connectionRow(id)).toMatchObject({ status: "active", status_reason: null, refresh_started_at: null });
  });

  it("a 401 in two instances at once: one refresh at the vendor, the other adopts the stored tokens", async () => {
    const id = await connectedUser("refresh-race-401");
    const connection = await openConnection(id);
    const [a, b] = twoInstances();
    const [sa, sb] = await Promise.all([a.sessions.open(connection), b.sessions.open(connection)]);
    // The vendor drops the access token before its stated expiry: each session learns it from a 401.
    cloud.expireAccessTokens();
    const before = tokenRequests();

    const pages = await Promise.all([readWorkouts(sa), readWorkouts(sb)]);

    for (const page of pages) expect(page).toHaveProperty("records");
    expect(tokenRequests() - before).toBe(1);
    expect(await connectionRow(id)).toMatchObject({ status: "active", status_reason: null, refresh_started_at: null });
  });
});

describe("a refresh interrupted between the vendor's answer and its storing", () => {
  /** A sync run of the connection, run to its end by the providers module's own sync job. */
  async function syncOnce(connectionId: string) {
    const providers = providersOn();
    try {
      const connection = await openConnection(connectionId);
      const run = await db.transaction((tx) =>
        providers.sync.enqueueRun(tx, connection, {
          source: "pull",
          scope: "live",
          kinds: ["workouts"],
          start: Date.now() - 86_400_000,
          end: Date.now(),
          message: "test sync",
        }),
      );
      await drainQueue(db, logger, SYNC_QUEUE, providers.queues[SYNC_QUEUE] as never);
      const [row] = await db.query<{ status: string; error: string | null; message: string | null }>(
        "SELECT status, error, message FROM wearables.sync_runs WHERE id = $1",
        [(run as { id: string }).id],
      );
      return row;
    } finally {
      await providers.close();
    }
  }

  const expire = (id: string) =>
    db.query("UPDATE wearables.user_connections SET token_expires_at = now() - interval '1 minute' WHERE id = $1", [
      id,
    ]);

  it("leaves its marker; the refusal that follows revokes the connection as `refresh_interrupted`", async () => {
    const id = await connectedUser("refresh-interrupted");
    await expire(id);
    // The process "dies" once the vendor has answered: the new pair is issued, the old refresh token void.
    const dying = createVendorSessions({
      directory: createVendorDirectory({ config, sandboxOrigin: () => cloud.origin }),
      secrets: createConfiguredSecretBox(config),
      store: createConnectionsStore(db),
      leases: createLeases({ db }),
      counter: createMemoryRateCounter(),
      async fetch(input, init) {
        const res = await fetch(input, init);
        if (String(input).endsWith(TOKEN_PATH)) {
          await res.text();
          throw new Error("killed after the vendor's answer");
        }
        return res;
      },
    });
    await expect(dying.open(await openConnection(id))).rejects.toThrow("killed after the vendor's answer");
    expect((await connectionRow(id))?.refresh_started_at).toBeInstanceOf(Date);

    const run = await syncOnce(id);

    expect(run).toMatchObject({ status: "failed" });
    expect(run?.error).toMatch(/^refresh_interrupted: /);
    expect(run?.message).toMatch(/authorize the connection again/);
    expect(await connectionRow(id)).toMatchObject({
      status: "revoked",
      status_reason: "refresh_interrupted",
      refresh_started_at: null,
    });
  });

  it("a refusal without the marker stays `refresh_failed` (the anchor's reason)", async () => {
    const login = "refresh-refused";
    const id = await connectedUser(login);
    await expire(id);
    cloud.revokeUser(login);

    const run = await syncOnce(id);

    expect(run?.error).toMatch(/^refresh_failed: /);
    expect(await connectionRow(id)).toMatchObject({ status: "revoked", status_reason: "refresh_failed" });
  });
});
