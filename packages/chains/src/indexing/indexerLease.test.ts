/**
 * Two instances' indexers of one chain on one database (PGlite, or PostgreSQL with TEST_DATABASE_URL): only
 * one runs at a time; the other takes over when the first stops, or when its lease expires (then the first
 * one's fenced checkpoint writes are refused). Short TTLs, and waits for conditions, never fixed sleeps.
 */
import { createLogger, kernelMigrations, LeaseLostError, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIndexerLease, type IndexerLease } from "./indexerLease.ts";

const logger = createLogger({ level: "silent" });
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, kernelMigrations());
  // Stands for an indexer's checkpoint table: every write is fenced, and remembers who made it.
  await t.db.exec("CREATE TABLE public.checkpoints (seq serial PRIMARY KEY, instance text NOT NULL, token bigint)");
});
afterAll(() => t?.drop());

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An instance's indexer: while it holds the lease, it writes a fenced checkpoint every few ms. */
function startInstance(name: string, instance: string, ttlMs: number) {
  const lease: IndexerLease = createIndexerLease({ db: t.db, logger, name, ttlMs });
  const refused: unknown[] = [];
  let running = 0;
  const write = () =>
    t.db.transaction(async (tx) => {
      await lease.fence(tx);
      const [held] = await tx.query<{ token: string }>("SELECT token FROM platform.leases WHERE name = $1", [name]);
      await tx.query("INSERT INTO public.checkpoints (instance, token) VALUES ($1, $2)", [instance, held?.token]);
    });
  const runner = lease.run(async (signal) => {
    running++;
    try {
      while (!signal.aborted) {
        await write().catch((error) => refused.push(error));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      running--;
    }
  });
  return { runner, refused, write, running: () => running > 0 };
}

/** Who wrote the checkpoints, in order, with the token they held: consecutive repeats collapsed. */
const writers = async () =>
  (await t.db.query<{ instance: string; token: string }>("SELECT instance, token FROM public.checkpoints ORDER BY seq"))
    .map((r) => `${r.instance}@${r.token}`)
    .filter((w, i, all) => all[i - 1] !== w);

const renewals = async (name: string) =>
  (
    await t.db.query<{ renewed_at: Date }>("SELECT renewed_at FROM platform.leases WHERE name = $1", [name])
  )[0]?.renewed_at.getTime();

describe("an indexer's lease, two instances on one database", () => {
  it("runs one at a time; the other takes over when the first stops", async () => {
    await t.db.exec("TRUNCATE public.checkpoints");
    const name = "test.indexer:1";
    const a = startInstance(name, "a", 2_000);
    await waitFor("a to run", () => a.running());
    const b = startInstance(name, "b", 2_000);
    // While a runs, b never does (checked on every turn of the waits), through two renewals of a's lease:
    // long enough for b to have tried to acquire it more than once (every ttl/3, as a renews).
    let both = false;
    const seen = new Set<number | undefined>([await renewals(name)]);
    await waitFor("a to renew twice", async () => {
      both ||= a.running() && b.running();
      seen.add(await renewals(name));
      return seen.size >= 3;
    });
    expect(both).toBe(false);
    expect(b.runner.holding()).toBe(false);

    await a.runner.stop(); // releases the lease: b takes it at its next try, not after a TTL
    await waitFor("b to take over", () => b.running());
    expect(a.running()).toBe(false);
    await b.runner.stop();
    expect(await writers()).toEqual(["a@1", "b@2"]);
    expect([...a.refused, ...b.refused]).toEqual([]);
  });

  it("the other takes over when the holder's lease expires, and the old holder's writes are refused", async () => {
    await t.db.exec("TRUNCATE public.checkpoints");
    const name = "test.indexer:2";
    const a = startInstance(name, "a", 600);
    await waitFor("a's first checkpoint", async () => (await writers()).length > 0);
    const b = startInstance(name, "b", 600);
    // a stalls past its lease (its renewals did not get through): the database ends it.
    await t.db.query(
      "UPDATE platform.leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = $1",
      [name],
    );
    await waitFor("b to take over", () => b.runner.holding() && b.running());
    // a's checkpoint writes between the expiry and its noticing are refused, never interleaved with b's.
    await waitFor("a to notice", () => !a.running());
    await expect(a.write()).rejects.toBeInstanceOf(LeaseLostError);
    for (const error of a.refused) expect(error).toBeInstanceOf(LeaseLostError);
    expect(b.refused).toEqual([]);
    const order = await writers();
    expect(order[0]).toBe("a@1");
    expect(order.slice(1).every((w) => w.startsWith("b@"))).toBe(true);
    await Promise.all([a.runner.stop(), b.runner.stop()]);
  });
});
