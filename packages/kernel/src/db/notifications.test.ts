/**
 * `Database.listen` on either driver: a NOTIFY arrives when its transaction commits and never when it rolls
 * back; stopping one listener leaves the others; on PostgreSQL the listening connection comes back after the
 * server drops it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testDatabase.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** The payloads heard on `channel`, and a wait for the first one that matches. */
async function hear(channel: string) {
  const heard: string[] = [];
  const waiters = new Set<() => void>();
  const stop = await t.db.listen(channel, (payload) => {
    heard.push(payload);
    for (const wake of waiters) wake();
  });
  const until = (payload: string, timeoutMs = 5_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!heard.includes(payload)) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`"${payload}" not heard on ${channel} in ${timeoutMs} ms (heard ${heard.join(", ")})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { heard, until, stop };
}

const notify = (channel: string, payload: string) => t.db.query("SELECT pg_notify($1, $2)", [channel, payload]);

describe(`listen (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("hears a committed NOTIFY and never a rolled-back one", async () => {
    const events = await hear("probe_events");
    await t.db.transaction(async (tx) => {
      await tx.query("SELECT pg_notify('probe_events', '1')");
    });
    await events.until("1");
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query("SELECT pg_notify('probe_events', '2')");
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await t.db.transaction((tx) => tx.query("SELECT pg_notify('probe_events', '3')"));
    // Notifications arrive in commit order, so once "3" is here "2" would have come before it.
    await events.until("3");
    expect(events.heard).toEqual(["1", "3"]);
    await events.stop();
  });

  it("delivers to every listener of a channel until each stops, and not across channels", async () => {
    const first = await hear("probe_shared");
    const second = await hear("probe_shared");
    const other = await hear("probe_other");
    await notify("probe_shared", "a");
    await Promise.all([first.until("a"), second.until("a")]);
    await first.stop();
    await notify("probe_shared", "b");
    await notify("probe_other", "c");
    await Promise.all([second.until("b"), other.until("c")]);
    expect(first.heard).toEqual(["a"]);
    expect(second.heard).toEqual(["a", "b"]);
    expect(other.heard).toEqual(["c"]);
    await second.stop();
    await other.stop();
  });

  it.runIf(process.env.TEST_DATABASE_URL)("listens again after the server drops the listening connection", async () => {
    const events = await hear("probe_reconnect");
    const [backend] = await t.db.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    );
    expect(backend).toBeDefined();
    await t.db.query("SELECT pg_terminate_backend($1)", [backend?.pid]);
    // What is sent while the connection is down is lost; send until the new connection hears one.
    let n = 0;
    const sending = setInterval(() => void notify("probe_reconnect", `after-${++n}`).catch(() => {}), 50);
    try {
      await new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error("never heard after the reconnection")), 8_000);
        const poll = setInterval(() => {
          if (!events.heard.some((p) => p.startsWith("after-"))) return;
          clearInterval(poll);
          clearTimeout(deadline);
          resolve();
        }, 20);
      });
    } finally {
      clearInterval(sending);
    }
    await events.stop();
  });
});
