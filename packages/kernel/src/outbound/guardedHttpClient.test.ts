/**
 * The SSRF guard against every private address form the webhooks issue names (IPv4 and its decimal and hex
 * spellings, IPv6 loopback, IPv4-mapped, NAT64 and 6to4 forms, a name that resolves to 127.0.0.1, a redirect
 * to loopback), and the client's deadline and body bound, against real local HTTP servers.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAddressPolicy, embeddedIpv4 } from "./addressPolicy.ts";
import { createGuardedHttpClient, OutboundRefusedError, OutboundTimeoutError } from "./guardedHttpClient.ts";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/redirect") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
    } else if (req.url === "/slow") {
      setTimeout(() => res.end("late"), 2_000).unref();
    } else if (req.url === "/big") {
      res.end("x".repeat(1_000_000));
    } else {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.method} ${body}`));
    }
  });
  await new Promise<void>((r) => server.listen(0, "0.0.0.0", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("address policy", () => {
  const policy = createAddressPolicy();
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
  ])("refuses %s", (ip) => {
    expect(policy.refusal(ip)).toMatch(/address/);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (ip) => {
    expect(policy.refusal(ip)).toBeUndefined();
  });

  it("allows what configuration allows, and nothing more", () => {
    const open = createAddressPolicy({ allow: ["127.0.0.0/8", "::1"] });
    expect(open.refusal("127.0.0.1")).toBeUndefined();
    expect(open.refusal("::1")).toBeUndefined();
    expect(open.refusal("::ffff:127.0.0.1")).toBeUndefined();
    expect(open.refusal("10.0.0.1")).toMatch(/private/);
    expect(() => createAddressPolicy({ allow: ["localhost"] })).toThrow(/not an IP address/);
    expect(() => createAddressPolicy({ allow: ["10.0.0.0/33"] })).toThrow(/prefix/);
  });

  it("reads the IPv4 address inside mapped, NAT64 and 6to4 forms", () => {
    expect(embeddedIpv4("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(embeddedIpv4("::ffff:a00:1")).toBe("10.0.0.1");
    expect(embeddedIpv4("64:ff9b::c0a8:101")).toBe("192.168.1.1");
    expect(embeddedIpv4("2002:c0a8:101::1")).toBe("192.168.1.1");
    expect(embeddedIpv4("2606:4700::1")).toBeUndefined();
  });
});

describe("guarded HTTP client", () => {
  const strict = createGuardedHttpClient({
    policy: createAddressPolicy(),
    // "rebind.test" plays a public name whose record points at loopback.
    resolve: async (host) =>
      host === "rebind.test"
        ? [{ address: "127.0.0.1", family: 4 }]
        : host === "mixed.test"
          ? [
              { address: "93.184.216.34", family: 4 },
              { address: "10.0.0.5", family: 4 },
            ]
          : [{ address: "127.0.0.1", family: 4 }],
  });
  const open = createGuardedHttpClient({ policy: createAddressPolicy({ allow: ["127.0.0.0/8"] }) });
  afterAll(() => {
    strict.close();
    open.close();
  });

  it.each([
    ["loopback", () => `http://127.0.0.1:${port}/ok`],
    ["decimal", () => `http://2130706433:${port}/ok`],
    ["hex", () => `http://0x7f.1:${port}/ok`],
    ["IPv6 loopback", () => `http://[::1]:${port}/ok`],
    ["IPv4-mapped", () => `http://[::ffff:127.0.0.1]:${port}/ok`],
    ["a name resolving to 127.0.0.1", () => `http://rebind.test:${port}/ok`],
    ["a name resolving to a private address among public ones", () => `http://mixed.test:${port}/ok`],
    ["another scheme", () => "file:///etc/passwd"],
    ["credentials in the URL", () => "http://user:pw@93.184.216.34/"],
  ])("refuses %s", async (_name, url) => {
    await expect(strict.send({ url: url(), method: "POST", body: "{}" })).rejects.toBeInstanceOf(OutboundRefusedError);
  });

  it("sends where allowed, and answers status, body and duration", async () => {
    const res = await open.send({ url: `http://127.0.0.1:${port}/ok`, method: "POST", body: '{"a":1}' });
    expect(res).toMatchObject({ status: 200, body: 'POST {"a":1}', truncated: false });
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("does not follow a redirect by default, and checks every hop when it does", async () => {
    const first = await open.send({ url: `http://127.0.0.1:${port}/redirect` });
    expect(first.status).toBe(302);
    const followed = await open.send({ url: `http://127.0.0.1:${port}/redirect`, maxRedirects: 2 });
    expect(followed).toMatchObject({ status: 200, url: `http://127.0.0.1:${port}/ok` });
    // A public-looking name that redirects to loopback: the hop is refused.
    const viaName = createGuardedHttpClient({
      policy: createAddressPolicy({ allow: ["127.0.0.2/32"] }),
      resolve: async () => [{ address: "127.0.0.2", family: 4 }],
    });
    try {
      await expect(viaName.send({ url: `http://hooks.test:${port}/redirect`, maxRedirects: 2 })).rejects.toThrow(
        /127\.0\.0\.1 is a loopback address/,
      );
    } finally {
      viaName.close();
    }
  });

  it("gives up at the deadline, and reads a body only up to its bound", async () => {
    await expect(open.send({ url: `http://127.0.0.1:${port}/slow`, timeoutMs: 200 })).rejects.toBeInstanceOf(
      OutboundTimeoutError,
    );
    const big = await open.send({ url: `http://127.0.0.1:${port}/big`, maxResponseBytes: 1_000 });
    expect(big.body.length).toBe(1_000);
    expect(big.truncated).toBe(true);
  });
});
