/**
 * The instance registry on either database: a registered process is listed alive with its role, host and pid;
 * its heartbeat renews `heartbeat_at`; a row not renewed within the TTL is listed as gone; a stop deletes the row.
 */
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "./db/testDatabase.ts";
import { listInstances, registerInstance } from "./instances.ts";
import { createJobsTestDatabase, silentLogger as logger, waitFor } from "./jobs/testing.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createJobsTestDatabase();
});
afterAll(() => t.drop());

describe("platform instances", () => {
  it("lists a registered instance alive with its role, renews its heartbeat, and deletes it at its stop", async () => {
    const api = await registerInstance({ db: t.db, role: "api", logger, heartbeatMs: 20 });
    const worker = await registerInstance({ db: t.db, role: "worker", logger });
    // Two rows started within the same instant: compared in role order.
    const listed = (await listInstances(t.db)).sort((a, b) => a.role.localeCompare(b.role));
    expect(listed.map((i) => [i.id, i.role, i.host, i.pid, i.alive])).toEqual([
      [api.id, "api", hostname(), process.pid, true],
      [worker.id, "worker", hostname(), process.pid, true],
    ]);
    const heartbeat = async () => (await listInstances(t.db)).find((i) => i.id === api.id)?.heartbeat_at.getTime() ?? 0;
    const first = await heartbeat();
    await waitFor("a heartbeat", async () => (await heartbeat()) > first);
    await api.stop();
    expect((await listInstances(t.db)).map((i) => i.id)).toEqual([worker.id]);
    await worker.stop();
    expect(await listInstances(t.db)).toEqual([]);
  });

  it("lists an instance whose heartbeat is older than the TTL as gone", async () => {
    const instance = await registerInstance({ db: t.db, role: "all", logger });
    // The heartbeat of a process killed a minute ago, without waiting for the clock.
    await t.db.query("UPDATE platform.instances SET heartbeat_at = now() - interval '1 minute' WHERE id = $1", [
      instance.id,
    ]);
    expect((await listInstances(t.db, { ttlMs: 20_000 })).map((i) => i.alive)).toEqual([false]);
    expect((await listInstances(t.db, { ttlMs: 120_000 })).map((i) => i.alive)).toEqual([true]);
    await instance.stop();
  });
});
