/**
 * Failed API keys per client address (kernel's limit) on the running service, behind a trusted proxy
 * (TRUST_PROXY=1, the test client at 127.0.0.1 being the proxy) and without one.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";

const LIMIT = 3;
let proxied: TestService;
let direct: TestService;
beforeAll(async () => {
  proxied = await startTestService(wearablesService, { config: { trustProxy: 1, authFailureLimit: LIMIT } });
  direct = await startTestService(wearablesService, { config: { authFailureLimit: LIMIT } });
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
});

const users = (s: TestService, key: string, from?: string) =>
  fetch(`${s.url}/api/v1/users`, {
    headers: { "X-Service-API-Key": key, ...(from ? { "X-Forwarded-For": from } : {}) },
  });

describe("failed API keys per client address", () => {
  it("behind a trusted proxy: the forwarded address is refused with 429 and Retry-After; others still pass", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await users(proxied, "bad-key", "203.0.113.5")).status).toBe(401);
    const refused = await users(proxied, proxied.apiKey, "203.0.113.5");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({ detail: expect.stringContaining("Too many failed") });
    // A valid key from another client behind the same proxy, and its success resets nobody's count.
    expect((await users(proxied, proxied.apiKey, "203.0.113.6")).status).toBe(200);
    expect((await users(proxied, "bad-key", "203.0.113.5")).status).toBe(429);
  });

  it("without TRUST_PROXY a forged X-Forwarded-For changes nothing: the socket's address is counted", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await users(direct, "bad-key", `198.51.100.${i}`)).status).toBe(401);
    const refused = await users(direct, direct.apiKey, "198.51.100.200");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
