/**
 * The front README's "Services and URLs" table is true: one real `platform start` (every service, the
 * devnet's seven chains) with every port moved to an ephemeral one, and every URL of the table requested
 * after mapping its documented default port to the port actually used.
 *
 * The map: a service host's default port comes from the platform's own service list and the defaults of
 * `loadConfig` (`WEARABLES_PORT` 8000, …), a devnet chain's from `DEFAULT_DEVNET_PORTS`; the port it got comes
 * from the table `platform start` prints. A URL whose port is no host's default, a chain listed with another
 * chain's port, or a path the host does not serve fails the test.
 *
 * What "answers" means:
 * - an OpenAPI URL: 200, JSON with an `openapi` field; a docs URL: 200, HTML;
 * - a base URL is exactly the base URL `platform start` prints for that host, and it serves its API: the
 *   wearables and crosschain APIs list users and routes with the demo key; chainstats answers a daily
 *   statistic with the demo key (`OK` or `No records found`, never `NOTOK`); the brokerage's live and paper
 *   hosts answer `GET /v2/account` with a key pair of the demo user's live or paper account, and the market
 *   data host `GET /v2/stocks/meta/exchanges` with one; the authorization host serves its RFC 8414 metadata
 *   with itself as the issuer, and a path given beside it answers with an HTML page;
 * - a WebSocket URL accepts the upgrade (a market data feed then says `connected`);
 * - a devnet JSON-RPC URL answers `eth_chainId` with the chain id the table gives.
 *
 * Every host and chain `platform start` prints must be in the table, so a new one cannot stay undocumented.
 */
import { readFileSync } from "node:fs";
import { DEFAULT_DEVNET_PORTS } from "@platform/chains";
import { loadConfig } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { allServices } from "../packages/platform/src/services.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

const README = new URL("../README.md", import.meta.url);

interface ServiceRow {
  label: string;
  /** http(s) and ws URLs of the base URL cell. */
  base: string[];
  /** Paths given beside the base URL (`/oauth/authorize`). */
  paths: string[];
  openapi: string | undefined;
  docs: string | undefined;
}
interface ChainRow {
  chainId: number;
  url: string;
}

/** The rows of the first table under "## Services and URLs". */
function readServicesTable(markdown: string): { services: ServiceRow[]; chains: ChainRow[] } {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Services and URLs"));
  if (!section) throw new Error('README has no "## Services and URLs" section');
  const lines = section.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, line.trimEnd().endsWith("|") ? line.trimEnd().length - 1 : undefined)
        .split("|")
        .map((c) => c.trim()),
    );
  }
  const code = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
  const services: ServiceRow[] = [];
  const chains: ChainRow[] = [];
  // rows[0] is the head, rows[1] the separator.
  for (const [label = "", base, openapi, docs] of rows.slice(2)) {
    const pairs = [...(base ?? "").matchAll(/(\d+)\s*→\s*`([^`]+)`/g)];
    if (pairs.length) {
      for (const m of pairs) chains.push({ chainId: Number(m[1]), url: m[2] as string });
      continue;
    }
    const urls = code(base);
    services.push({
      label,
      base: urls.filter((u) => /^(https?|wss?):\/\//.test(u)),
      paths: urls.filter((u) => u.startsWith("/")),
      openapi: code(openapi)[0],
      docs: code(docs)[0],
    });
  }
  return { services, chains };
}

/** Every host `platform start` serves: its name in the printed table and its default port and base path. */
function platformHosts() {
  const defaults = loadConfig({ env: {} });
  return allServices.flatMap((service) =>
    [{ name: "", port: service.port, basePath: service.basePath }, ...(service.hosts ?? [])].map((host) => ({
      name: host.name ? `${service.name} ${host.name}` : service.name,
      service: service.name,
      host: host.name || "",
      defaultPort: host.port(defaults),
      basePath: host.basePath,
    })),
  );
}
type Host = ReturnType<typeof platformHosts>[number];

let platform: PlatformProcess;
let env: Record<string, string>;
let removeEnv: (() => Promise<void>) | undefined;
/** Banner name → printed base URL; chain id → printed JSON-RPC URL. */
const printedBase = new Map<string, string>();
const printedRpc = new Map<number, string>();
const hosts = platformHosts();
const table = readServicesTable(readFileSync(README, "utf8"));

beforeAll(async () => {
  ({ env, remove: removeEnv } = await createPlatformEnv("readme", {
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET_BLOCK_TIME: "0",
    LOG_LEVEL: "warn",
  }));
  platform = await startPlatformProcess(env, 150_000);
  const out = platform.output();
  for (const m of out.matchAll(
    /│\s*([a-z]+(?: [a-z]+)?)\s*│\s*(http:\/\/\S+)\s*│\s*http:\/\/\S+\s*│\s*http:\/\/\S+\s*│/g,
  )) {
    printedBase.set(m[1] as string, m[2] as string);
  }
  for (const m of out.matchAll(/│\s*(\d+)\s*│\s*(http:\/\/\S+)\s*│/g)) printedRpc.set(Number(m[1]), m[2] as string);
}, 180_000);

afterAll(async () => {
  if (platform?.child.exitCode === null) await platform.stop();
  await removeEnv?.();
});

/** The host whose default port the documented URL names, and the URL on the port that host really got. */
function onRunningPlatform(documented: string): { host: Host; url: URL } {
  const url = new URL(documented);
  expect(url.hostname, `${documented}: the default HOST`).toBe("127.0.0.1");
  const host = hosts.find((h) => h.defaultPort === Number(url.port));
  if (!host) throw new Error(`${documented}: port ${url.port} is the default port of no host`);
  const printed = printedBase.get(host.name);
  if (!printed) throw new Error(`platform start printed no base URL for ${host.name}`);
  const actual = new URL(url.pathname + url.search, new URL(printed).origin);
  if (url.protocol.startsWith("ws")) actual.protocol = url.protocol;
  return { host, url: actual };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get("content-type")).toMatch(/application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

/** A key pair of the demo user's account of `env` (made with the operator command, as an operator would). */
const keyPairs = new Map<string, Record<string, string>>();
async function keyPairHeaders(accountEnv: "live" | "paper"): Promise<Record<string, string>> {
  const cached = keyPairs.get(accountEnv);
  if (cached) return cached;
  const listed = await runPlatform(["brokerage", "users", "list", "--json"], env);
  expect(listed.code, listed.stderr).toBe(0);
  const users = JSON.parse(listed.stdout) as { email: string; accounts: { env: string; account_number: string }[] }[];
  const account = users.find((u) => u.email === "demo@example.com")?.accounts.find((a) => a.env === accountEnv);
  if (!account) throw new Error(`the demo user has no ${accountEnv} account`);
  const made = await runPlatform(["brokerage", "keys", "create", "--account", account.account_number, "--json"], env);
  expect(made.code, made.stderr).toBe(0);
  const pair = JSON.parse(made.stdout) as { key_id: string; secret_key: string };
  const headers = { "APCA-API-KEY-ID": pair.key_id, "APCA-API-SECRET-KEY": pair.secret_key };
  keyPairs.set(accountEnv, headers);
  return headers;
}

const demoKey = (service: string) => {
  const key = platform.demoKeys[service];
  if (!key) throw new Error(`platform start printed no demo key for ${service}`);
  return key;
};

/** Requests the host's API at its base URL, as the file's header says. */
async function expectApiAnswers(host: Host, base: URL): Promise<void> {
  const at = (path: string) => new URL(base.href.replace(/\/$/, "") + path);
  switch (host.name) {
    case "wearables": {
      const r = await fetch(at("/users?limit=1"), { headers: { "X-Service-API-Key": demoKey("wearables") } });
      expect(r.status).toBe(200);
      expect((await json(r)).items).toBeInstanceOf(Array);
      return;
    }
    case "crosschain": {
      const r = await fetch(at("/available-routes"), { headers: { Authorization: `Bearer ${demoKey("crosschain")}` } });
      expect(r.status).toBe(200);
      expect(await r.json()).toBeInstanceOf(Array);
      return;
    }
    case "chainstats": {
      const query = `?chainid=1&module=stats&action=dailytx&startdate=2020-01-01&enddate=2099-12-31&apikey=${demoKey("chainstats")}`;
      const r = await fetch(`${base.href}${query}`);
      expect(r.status).toBe(200);
      expect(["OK", "No records found"]).toContain((await json(r)).message);
      return;
    }
    case "brokerage":
    case "brokerage paper": {
      const r = await fetch(at("/v2/account"), {
        headers: await keyPairHeaders(host.host === "paper" ? "paper" : "live"),
      });
      expect(r.status).toBe(200);
      expect((await json(r)).account_number).toMatch(/\w+/);
      return;
    }
    case "brokerage data": {
      const r = await fetch(at("/v2/stocks/meta/exchanges"), { headers: await keyPairHeaders("paper") });
      expect(r.status).toBe(200);
      await json(r);
      return;
    }
    case "wearables sandbox": {
      // The sandbox vendor's data API wants one of its own access tokens: without one it says so, as a vendor does.
      const r = await fetch(at("/v1/me"));
      expect(r.status).toBe(401);
      expect((await json(r)).message).toBe("Authorization Error");
      return;
    }
    case "brokerage auth": {
      const r = await fetch(at("/.well-known/oauth-authorization-server"));
      expect(r.status).toBe(200);
      expect((await json(r)).issuer).toBe(base.origin);
      return;
    }
    default:
      throw new Error(`no check of what ${host.name}'s base URL answers: add one to this test`);
  }
}

/** Opens a WebSocket and resolves with its first message (or "" when the server says nothing in 2 s). */
function firstMessage(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const done = (value: string) => {
      clearTimeout(timer);
      socket.close();
      resolve(value);
    };
    let timer: NodeJS.Timeout;
    socket.once("open", () => {
      timer = setTimeout(() => done(""), 2_000);
    });
    socket.once("message", (data) => done(String(data)));
    socket.once("unexpected-response", (_req, res) => reject(new Error(`${url}: HTTP ${res.statusCode}, no upgrade`)));
    socket.once("error", reject);
  });
}

describe("the README's services table", () => {
  it("lists every host and chain platform start serves", () => {
    expect(table.services.length).toBeGreaterThan(0);
    const documented = new Set(table.services.flatMap((row) => row.base.map((u) => onRunningPlatform(u).host.name)));
    expect([...documented].sort()).toEqual(hosts.map((h) => h.name).sort());
    expect(table.chains.map((c) => c.chainId).sort()).toEqual([...printedRpc.keys()].sort());
  });

  describe.each(table.services.map((row) => [row.label, row] as const))("%s", (_label, row) => {
    it("base URL: the one platform start prints, and it answers", async () => {
      const [first, ...more] = row.base;
      if (!first) throw new Error(`${row.label}: no base URL`);
      const { host, url } = onRunningPlatform(first);
      expect(url.href.replace(/\/$/, "")).toBe(printedBase.get(host.name));
      await expectApiAnswers(host, url);
      for (const other of more) {
        const mapped = onRunningPlatform(other);
        expect(mapped.host.name, `${other} is on ${row.label}'s host`).toBe(host.name);
        expect(mapped.url.protocol, `${other}: only streams sit beside the base URL`).toBe("ws:");
        const message = await firstMessage(mapped.url);
        if (/\/v2\/(iex|sip|test)$|\/v1beta3\/crypto\//.test(mapped.url.pathname)) {
          expect(JSON.parse(message)).toEqual([{ T: "success", msg: "connected" }]);
        }
      }
      for (const path of row.paths) {
        const r = await fetch(new URL(path, url.origin));
        expect(r.status, `${path} on ${host.name}`).not.toBe(404);
        expect(r.headers.get("content-type"), `${path} on ${host.name}`).toMatch(/text\/html/);
      }
    });

    it("OpenAPI URL: 200, JSON with an openapi field", async () => {
      if (!row.openapi) throw new Error(`${row.label}: no OpenAPI URL`);
      const r = await fetch(onRunningPlatform(row.openapi).url);
      expect(r.status).toBe(200);
      expect((await json(r)).openapi).toMatch(/^3\./);
    });

    it("docs URL: 200, HTML", async () => {
      if (!row.docs) throw new Error(`${row.label}: no docs URL`);
      const r = await fetch(onRunningPlatform(row.docs).url);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/text\/html/);
    });
  });

  it.each(table.chains.map((c) => [c.chainId, c] as const))(
    "devnet chain %i: its JSON-RPC URL answers eth_chainId",
    async (_id, chain) => {
      const documented = new URL(chain.url);
      expect(Number(documented.port), `the default devnet port of chain ${chain.chainId}`).toBe(
        DEFAULT_DEVNET_PORTS[chain.chainId],
      );
      const rpc = printedRpc.get(chain.chainId);
      if (!rpc) throw new Error(`platform start printed no JSON-RPC URL for chain ${chain.chainId}`);
      const r = await fetch(rpc, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      expect(r.status).toBe(200);
      expect(Number((await r.json()).result)).toBe(chain.chainId);
    },
  );
});
