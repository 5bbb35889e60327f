/**
 * The sandbox adapter against the sandbox cloud, through the same OAuth flow and client the sync uses: the
 * pattern of every vendor adapter's test (each vendor's stand-in is in testing/standins/).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandboxCloud } from "../../sandbox/sandboxCloud.ts";
import type { VendorCloud } from "../../sandbox/vendorCloud.ts";
import { connectToStandIn } from "../../testing/vendorHarness.ts";
import { VendorAuthError } from "../types.ts";
import { sandbox } from "./sandbox.ts";

const DAY = 86_400_000;
const credentials = { clientId: "sandbox-client", clientSecret: "sandbox-secret" };
let cloud: VendorCloud;

beforeAll(async () => {
  cloud = await startSandboxCloud({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

describe("sandbox adapter", () => {
  // A fixed past window: the sandbox's data of an account and day never changes.
  const window = { start: Date.parse("2026-03-02T00:00:00Z"), end: Date.parse("2026-03-16T00:00:00Z") };

  it("connects with PKCE and Basic client authentication, and reads the account", async () => {
    const h = await connectToStandIn({ adapter: sandbox, origin: cloud.origin, credentials, login: "alice" });
    expect(h.tokens.accessToken).toBeTruthy();
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("alice");
  });

  it("maps two weeks of workouts, sleep, heart rate and daily totals, page by page", async () => {
    const h = await connectToStandIn({ adapter: sandbox, origin: cloud.origin, credentials, login: "alice" });
    const workouts = (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts);
    const sleeps = (await h.fetchAll("sleep", window)).flatMap((p) => p.records.sleeps);
    const heart = await h.fetchAll("samples", window);
    const daily = (await h.fetchAll("daily", window)).flatMap((p) => p.records.samples);
    expect(workouts.length).toBeGreaterThan(3);
    for (const w of workouts) {
      expect(w.start).toBeGreaterThanOrEqual(window.start);
      expect(w.end).toBeLessThanOrEqual(window.end);
      expect(["running", "cycling", "walking", "strength_training"]).toContain(w.type);
      expect(w.details.heartRateAvg).toBeGreaterThan(80);
    }
    expect(sleeps.filter((s) => !s.details.isNap).length).toBeGreaterThanOrEqual(13);
    for (const s of sleeps) expect(s.details.totalDurationMinutes).toBeLessThanOrEqual(s.details.timeInBedMinutes ?? 0);
    // Heart rate comes in pages of 100: the cursor advanced through them all.
    expect(heart.length).toBeGreaterThan(2);
    expect(heart.flatMap((p) => p.records.samples).length).toBe(heart.reduce((n, p) => n + p.fetched, 0));
    // Whole local days (UTC+1) inside the window: 13 of them, each steps, resting HR and HRV.
    expect(daily.length).toBe(13 * 3);
    // The same account and window answer the same data.
    const again = (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts);
    expect(again).toEqual(workouts);
  });

  it("refreshes an expired token once and retries a 429 after Retry-After", async () => {
    const h = await connectToStandIn({ adapter: sandbox, origin: cloud.origin, credentials });
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("workouts", { start: window.start, end: window.start + 3 * DAY });
    expect(pages.length).toBeGreaterThan(0);
    expect(h.refreshes).toBe(1);
  });

  it("answers VendorAuthError when the grant was revoked at the vendor", async () => {
    const h = await connectToStandIn({ adapter: sandbox, origin: cloud.origin, credentials, login: "bob" });
    cloud.revokeUser("bob");
    await expect(h.fetchAll("workouts", window)).rejects.toBeInstanceOf(VendorAuthError);
  });
});
