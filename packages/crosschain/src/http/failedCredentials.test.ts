/** Failed API keys per client address (kernel's limit), behind a trusted proxy (TRUST_PROXY=1 from 127.0.0.1). */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";

const LIMIT = 3;
let s: TestService;
beforeAll(async () => {
  s = await startTestService(crosschainService, {
    config: { trustProxy: 1, authFailureLimit: LIMIT },
    chains: [{ chainId: 42161, rpcUrl: "http://127.0.0.1:8549" }], // no SpokePool: /chains is empty
  });
});
afterAll(async () => {
  await s?.close();
});

const chains = (key: string, from: string) =>
  fetch(`${s.url}/api/chains`, { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": from } });

describe("failed API keys per client address", () => {
  it("N bad keys → 429 ServiceApiError with Retry-After for that address; a good key from another still 200", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await chains("bad-key", "203.0.113.5")).status).toBe(401);
    const refused = await chains(s.apiKey, "203.0.113.5");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      type: "ServiceApiError",
      code: "TOO_MANY_REQUESTS",
      status: 429,
      message: expect.stringContaining("Too many failed"),
    });
    expect((await chains(s.apiKey, "203.0.113.6")).status).toBe(200);
  });
});
