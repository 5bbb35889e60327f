/**
 * Leases on either database: one holder at a time; a takeover after expiry gets a higher fencing token and
 * the old holder's fenced write is refused; `runWhileLeased` hands the loop over when its holder loses it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../db/testDatabase.ts";
import { LeaseLostError } from "./errors.ts";
import { createLeases, InvalidLeaseError } from "./leases.ts";
import { runWhileLeased } from "./runWhileLeased.ts";
import { createJobsTestDatabase, silentLogger as logger, waitFor } from "./testing.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createJobsTestDatabase();
  await t.db.exec("CREATE TABLE public.ledger (entry text NOT NULL, token bigint NOT NULL)");
});
afterAll(() => t.drop());

/** Ends the lease `name` now, as the passing of its TTL would (no waiting on the clock). */
const expire = (name: string) =>
  t.db.query("UPDATE platform.leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = $1", [name]);

describe("leases", () => {
  it("have one holder at a time; renew keeps the token; release lets another in with a higher one", async () => {
    const leases = createLeases({ db: t.db });
    const a = await leases.acquire({ name: "test.one", holder: "a", ttlMs: 60_000 });
    expect(a?.token).toBe(1n);
    expect(await leases.acquire({ name: "test.one", holder: "b", ttlMs: 60_000 })).toBeUndefined();
    // Acquiring again as the same holder renews: same token.
    expect((await leases.acquire({ name: "test.one", holder: "a", ttlMs: 60_000 }))?.token).toBe(1n);
    const renewed = await leases.renew(a!, 60_000);
    expect(renewed?.token).toBe(1n);
    expect(await leases.release(a!)).toBe(true);
    const b = await leases.acquire({ name: "test.one", holder: "b", ttlMs: 60_000 });
    expect(b?.token).toBe(2n);
    expect(await leases.renew(a!, 60_000)).toBeUndefined();
    expect(await leases.release(a!)).toBe(false);
    const listed = (await leases.list()).find((l) => l.name === "test.one");
    expect(listed).toMatchObject({ holder: "b", token: "2", held: true });
  });

  it("after expiry another holder takes over with a higher token, and the old holder's fenced write is refused", async () => {
    const leases = createLeases({ db: t.db });
    const old = (await leases.acquire({ name: "test.fenced", holder: "old", ttlMs: 60_000 }))!;
    // The holder writes with its token while it holds the lease.
    await t.db.transaction(async (tx) => {
      await leases.assertHeld(tx, old);
      await tx.query("INSERT INTO public.ledger VALUES ('old, while holding', $1)", [old.token.toString()]);
    });

    // It pauses past its lease; another instance takes over.
    await expire("test.fenced");
    const next = (await leases.acquire({ name: "test.fenced", holder: "new", ttlMs: 60_000 }))!;
    expect(next.token).toBeGreaterThan(old.token);

    // The old holder wakes up and tries to write: refused, nothing of its transaction is kept.
    const refused = t.db.transaction(async (tx) => {
      await tx.query("INSERT INTO public.ledger VALUES ('old, after losing', $1)", [old.token.toString()]);
      await leases.assertHeld(tx, old);
    });
    await expect(refused).rejects.toBeInstanceOf(LeaseLostError);
    await expect(refused).rejects.toMatchObject({ leaseName: "test.fenced", token: old.token });
    // Nor can it renew or release what it lost.
    expect(await leases.renew(old, 60_000)).toBeUndefined();
    expect(await leases.release(old)).toBe(false);

    await t.db.transaction(async (tx) => {
      await leases.assertHeld(tx, next);
      await tx.query("INSERT INTO public.ledger VALUES ('new', $1)", [next.token.toString()]);
    });
    const rows = await t.db.query<{ entry: string }>("SELECT entry FROM public.ledger ORDER BY token, entry");
    expect(rows.map((r) => r.entry)).toEqual(["old, while holding", "new"]);
  });

  it("a takeover waits for the holder's transaction in progress (FOR SHARE), then fences it out", async () => {
    const leases = createLeases({ db: t.db });
    const holder = (await leases.acquire({ name: "test.share", holder: "h", ttlMs: 60_000 }))!;
    let releaseWrite: () => void = () => {};
    const writing = new Promise<void>((resolve) => {
      releaseWrite = resolve;
    });
    let asserted = false;
    const write = t.db.transaction(async (tx) => {
      await leases.assertHeld(tx, holder);
      asserted = true;
      await writing;
      await tx.query("INSERT INTO public.ledger VALUES ('holder, in flight', $1)", [holder.token.toString()]);
    });
    await waitFor("the holder's assertion", () => asserted);
    // Another instance finds the lease expired and takes it over, in one transaction: it has to wait.
    let takenOver = false;
    const takeover = t.db
      .transaction(async (tx) => {
        await tx.query("UPDATE platform.leases SET expires_at = clock_timestamp() WHERE name = 'test.share'");
        return createLeases({ db: tx }).acquire({ name: "test.share", holder: "t", ttlMs: 60_000 });
      })
      .then((lease) => {
        takenOver = true;
        return lease;
      });
    // PostgreSQL: the takeover's UPDATE is seen waiting for the row the holder locked FOR SHARE. PGlite has one
    // connection: the takeover's transaction waits for the holder's to end (asking pg_locks would wait too).
    if (t.db.driver === "postgres") {
      await waitFor("the takeover to wait for the holder's row lock", async () => {
        const [row] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted");
        return (row?.n ?? 0) > 0;
      });
    }
    expect(takenOver).toBe(false);
    releaseWrite();
    await write;
    const lease = await takeover;
    expect(lease?.token).toBe(holder.token + 1n);
    // What the holder wrote while it held the lease stays; after the takeover, it writes nothing.
    expect(await t.db.query("SELECT 1 FROM public.ledger WHERE entry = 'holder, in flight'")).toHaveLength(1);
    await expect(t.db.transaction((tx) => leases.assertHeld(tx, holder))).rejects.toBeInstanceOf(LeaseLostError);
  });

  it("refuses names and TTLs that cannot be", async () => {
    const leases = createLeases({ db: t.db });
    await expect(leases.acquire({ name: "", holder: "a", ttlMs: 1_000 })).rejects.toBeInstanceOf(InvalidLeaseError);
    await expect(leases.acquire({ name: "x", holder: "a", ttlMs: 0 })).rejects.toBeInstanceOf(InvalidLeaseError);
  });
});

describe("runWhileLeased", () => {
  it("runs the loop on one instance; when it loses the lease its loop stops and another takes over", async () => {
    const events: string[] = [];
    const loop =
      (who: string) =>
      async ({ lease, signal }: { lease: { token: bigint }; signal: AbortSignal }) => {
        events.push(`${who} start ${lease.token}`);
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
        events.push(`${who} stop`);
      };
    const options = { db: t.db, logger, name: "test.loop", ttlMs: 600, renewMs: 100, retryMs: 100 };
    const a = runWhileLeased({ ...options, holder: "a" }, loop("a"));
    await waitFor("a to hold", () => a.holding());
    const b = runWhileLeased({ ...options, holder: "b" }, loop("b"));
    try {
      // b keeps trying but never runs while a renews.
      await waitFor("a few of b's attempts", async () => {
        const [row] = await t.db.query<{ renewed: Date; acquired: Date }>(
          "SELECT renewed_at AS renewed, acquired_at AS acquired FROM platform.leases WHERE name = 'test.loop'",
        );
        return (row?.renewed.getTime() ?? 0) - (row?.acquired.getTime() ?? 0) > 300;
      });
      expect(b.holding()).toBe(false);

      // a's lease is taken from it (as if a paused past it): its renewal fails, its loop is stopped, b runs.
      await expire("test.loop");
      // b may start before a notices (at its next renewal, within renewMs): the two overlap for that moment,
      // which is what the fencing token is for (a's fenced writes are refused from b's takeover on).
      await waitFor("b to take over", () => b.holding());
      await waitFor("a's loop to stop", () => events.includes("a stop"));
      expect(events[0]).toBe("a start 1");
      expect(events).toContain("b start 2");
      expect(events.filter((e) => e.startsWith("a start"))).toHaveLength(1);
      expect(b.status()).toMatchObject({ holding: true, token: "2" });
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(events.at(-1)).toBe("b stop");
    // Stopping released it: the next holder gets it at once, with the next token.
    const next = await createLeases({ db: t.db }).acquire({ name: "test.loop", holder: "c", ttlMs: 1_000 });
    expect(next?.token).toBeGreaterThanOrEqual(3n);
  });
});
