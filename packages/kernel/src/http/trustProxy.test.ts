/** TRUST_PROXY: the client address and protocol a server believes, with and without trusted proxies. */
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config/loadConfig.ts";
import { parseTrustProxy, type TrustProxy } from "../config/parsers.ts";
import { createLogger } from "../log/logger.ts";
import { createHttpServer, type HttpServer } from "./createHttpServer.ts";

let app: HttpServer | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function whoAmI(trustProxy: TrustProxy | undefined, remoteAddress: string, headers: Record<string, string>) {
  app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    bodyLimit: 1024,
    formatError: (error) => ({ statusCode: error.statusCode, body: { message: error.message } }),
    openapi: { title: "t", version: "1", description: "t" },
    trustProxy,
  });
  app.get("/who", { schema: { hide: true } }, async (request) => ({ ip: request.ip, protocol: request.protocol }));
  const response = await app.inject({ method: "GET", url: "/who", remoteAddress, headers });
  return response.json() as { ip: string; protocol: string };
}

const forged = { "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" };

describe("trustProxy", () => {
  it("off (the default): forwarding headers are ignored", async () => {
    expect(await whoAmI(undefined, "127.0.0.1", forged)).toEqual({ ip: "127.0.0.1", protocol: "http" });
    expect(await whoAmI(false, "127.0.0.1", forged)).toEqual({ ip: "127.0.0.1", protocol: "http" });
  });

  it("a hop count: the address the last proxy saw, and its protocol", async () => {
    const chain = { "x-forwarded-for": "198.51.100.1, 203.0.113.9", "x-forwarded-proto": "https" };
    expect(await whoAmI(1, "127.0.0.1", chain)).toEqual({ ip: "203.0.113.9", protocol: "https" });
  });

  it("an address list: believed only from those proxies", async () => {
    expect(await whoAmI(["10.0.0.0/8"], "10.1.2.3", forged)).toEqual({ ip: "203.0.113.9", protocol: "https" });
    expect(await whoAmI(["10.0.0.0/8"], "127.0.0.1", forged)).toEqual({ ip: "127.0.0.1", protocol: "http" });
  });
});

describe("TRUST_PROXY", () => {
  it("takes Fastify's forms: false, true, a hop count, a list of addresses, CIDRs and range names", () => {
    expect(loadConfig({ env: {} }).trustProxy).toBe(false);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("0")).toBe(false);
    expect(parseTrustProxy("true")).toBe(true);
    expect(parseTrustProxy("2")).toBe(2);
    expect(parseTrustProxy("127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback")).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
      "loopback",
    ]);
    expect(loadConfig({ env: { TRUST_PROXY: "1" } }).trustProxy).toBe(1);
  });

  it("refuses anything else at start-up, naming the option", () => {
    for (const bad of ["10.0.0.0/33", "proxy.example.com", "1.2.3", "::1/129", "10.0.0.0/8/1"]) {
      expect(() => loadConfig({ env: { TRUST_PROXY: bad } }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});
