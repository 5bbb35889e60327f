/**
 * The per-connection refresh lock: one holder at a time, released after its work (also when it throws); a
 * waiter is never stuck: it stops on its signal, gives up after `maxWaitMs`, and takes over the lease of a
 * holder that died once the lease expires. The pauses between tries are injected: no waiting on the clock.
 * On PGlite by default, on PostgreSQL with TEST_DATABASE_URL.
 */
import { abortableSleep, createLeases, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { waitFor } from "../testing/jobWorkers.ts";
import { createRefreshLock, RefreshLockTimeoutError, refreshLeaseName } from "./refreshLock.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, kernelMigrations());
});
afterAll(() => t?.drop());

const CONNECTION = "5b0e8c1e-3f5a-4c47-9d2b-7a1e6f0c9d31";
const heldBy = async (connectionId: string) =>
  (
    await t.db.query<{ holder: string | null }>(
      "SELECT holder FROM platform.leases WHERE name = $1 AND expires_at > clock_timestamp()",
      [refreshLeaseName(connectionId)],
    )
  )[0]?.holder ?? null;

it("runs one holder at a time and releases the lease after the work, also when it throws", async () => {
  const leases = createLeases({ db: t.db });
  const lock = createRefreshLock({ leases, sleep: async () => {} });
  const order: string[] = [];
  let releaseFirst = () => {};
  const first = lock.run(CONNECTION, undefined, async () => {
    order.push("first in");
    await new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    order.push("first out");
  });
  await waitFor("the first holder to hold the lease", () => order.includes("first in"));
  // The second waits: each pause between its tries lets the first finish once the second has been refused.
  const waiting = createRefreshLock({
    leases,
    sleep: async () => {
      releaseFirst();
      await new Promise((resolve) => setImmediate(resolve));
    },
  });
  const second = waiting.run(CONNECTION, undefined, async () => {
    order.push("second");
  });
  await Promise.all([first, second]);
  expect(order).toEqual(["first in", "first out", "second"]);
  await expect(
    lock.run(CONNECTION, undefined, async () => {
      throw new Error("refresh failed");
    }),
  ).rejects.toThrow("refresh failed");
  expect(await heldBy(CONNECTION)).toBeNull();
});

it("a waiter stops on its signal, and gives up after maxWaitMs", async () => {
  const leases = createLeases({ db: t.db });
  const held = await leases.acquire({ name: refreshLeaseName(CONNECTION), holder: "other", ttlMs: 60_000 });
  expect(held).toBeDefined();
  const abort = new AbortController();
  const aborting = createRefreshLock({
    leases,
    sleep: (ms, signal) => {
      abort.abort(new Error("job stopped"));
      return abortableSleep(ms, signal);
    },
  });
  let ran = false;
  await expect(
    aborting.run(CONNECTION, abort.signal, async () => {
      ran = true;
    }),
  ).rejects.toThrow("job stopped");
  await expect(
    createRefreshLock({ leases, maxWaitMs: 0 }).run(CONNECTION, undefined, async () => {
      ran = true;
    }),
  ).rejects.toBeInstanceOf(RefreshLockTimeoutError);
  expect(ran).toBe(false);
  await leases.release(held!);
});

it("takes over the lease of a holder that died, once it expires", async () => {
  const leases = createLeases({ db: t.db });
  await leases.acquire({ name: refreshLeaseName(CONNECTION), holder: "killed", ttlMs: 60_000 });
  let tries = 0;
  const lock = createRefreshLock({
    leases,
    // The killed holder's TTL passing, without waiting for it: its lease ends after the waiter's first refusal.
    sleep: async () => {
      tries += 1;
      await t.db.query(
        "UPDATE platform.leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = $1",
        [refreshLeaseName(CONNECTION)],
      );
    },
  });
  const holder = await lock.run(CONNECTION, undefined, () => heldBy(CONNECTION));
  expect(tries).toBe(1);
  expect(holder).not.toBe("killed");
  expect(holder).not.toBeNull();
});
