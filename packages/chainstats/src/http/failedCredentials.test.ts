/**
 * Invalid API keys per client address (kernel's limit), behind a trusted proxy (TRUST_PROXY=1 from 127.0.0.1):
 * over the limit HTTP 429 with `Retry-After` and the Etherscan envelope, before the key is looked up.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainstatsService } from "../index.ts";

const LIMIT = 3;
let s: TestService;
beforeAll(async () => {
  s = await startTestService(chainstatsService, { config: { trustProxy: 1, authFailureLimit: LIMIT } });
});
afterAll(async () => {
  await s?.close();
});

const stats = (key: string, from: string) =>
  fetch(`${s.url}/v2/api?chainid=1&module=stats&action=dailytx&apikey=${key}`, {
    headers: { "x-forwarded-for": from },
  });

describe("failed API keys per client address", () => {
  it("N bad keys → 429 NOTOK with Retry-After for that address; a good key from another is served", async () => {
    for (let i = 0; i < LIMIT; i++) {
      const bad = await stats("BADKEY", "203.0.113.5");
      expect(bad.status).toBe(200);
      expect(await bad.json()).toEqual({ status: "0", message: "NOTOK", result: "Invalid API Key" });
    }
    const refused = await stats(s.apiKey, "203.0.113.5");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({
      status: "0",
      message: "NOTOK",
      result: expect.stringContaining("Too many failed"),
    });
    const other = await stats(s.apiKey, "203.0.113.6");
    expect(other.status).toBe(200);
    expect((await other.json()).result).not.toMatch(/Invalid API Key|Too many failed/);
  });
});
