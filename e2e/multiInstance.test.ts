/**
 * Several instances behind a balancer, as an operator runs them: three `platform start --role api` and two
 * `--role worker` on one PostgreSQL database and one Redis, the devnet chains run once by `platform devnet`
 * (the api instances read its manifest under the shared DATA_DIR; the workers, each on a data folder of its
 * own, read it there too, running no devnet chain themselves: DEVNET_CHAINS=","), and HAProxy (Debian's package) in front of the api instances,
 * round-robin, with health checks and `option forwardfor` (the instances run with TRUST_PROXY=1).
 *
 * Through the balancer: an app-sdk deposit quoted, filled by the relayer and reported; Alpaca orders with the
 * trade-update stream; the market data one-connection rule (406) across instances; an Apple Health export
 * imported; chainstats queries; the failed-credentials limit counted across instances. Midway one api
 * instance and the worker holding the relayer's lease are killed with SIGKILL (just after a deposit was
 * mined): every flow completes, nothing is lost or done twice, and the other worker takes the lease within
 * its lease time.
 *
 * Needs PostgreSQL (TEST_DATABASE_URL), Redis (TEST_REDIS_URL) and haproxy: declared only when both URLs are
 * set (CI's second pass sets both, `.ci/run`, which installs haproxy); then a missing haproxy fails the suite.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAcrossClient } from "@across-protocol/app-sdk";
import { streaming } from "@alpacahq/alpaca-trade-api";
import { type DevnetManifest, loadArtifact, manifestChain, manifestToken, viemChain } from "@platform/chains";
import { createDatabase, type Database } from "@platform/kernel";
import { createWalletClient, http, parseEventLogs, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appleExportXml } from "../packages/wearables/src/testing/appleExport.ts";
import { routeAcrossFetchTo } from "./support/acrossFetch.ts";
import { listenToTradeUpdates, pollUntil, type TradeUpdateLog } from "./support/alpacaClients.ts";
import { type Balancer, HAPROXY, haproxyConfig, haproxyInstalled, startHaproxy } from "./support/haproxy.ts";
import { depositUsdcByHand, manifestClient } from "./support/manualDeposit.ts";
import {
  type CommandResult,
  createPlatformEnv,
  EPHEMERAL_PORTS,
  hostOrigin,
  type PlatformProcess,
  runPlatform,
  startCommandProcess,
} from "./support/platformProcess.ts";

const READY = "Ctrl-C stops the platform";
const A = 8453; // origin of the deposits
const B = 10; // destination: the relayer's lease of this chain is the one taken over
const LEASE_SEC = 4;
/** Poll interval of the standby relayer (CROSSCHAIN_POLL_MS) and the database clock's skew, roughly. */
const TAKEOVER_MARGIN_MS = 3_000;
const AUTH_FAILURE_LIMIT = 8;

type HostName =
  | "wearables"
  | "crosschain"
  | "chainstats"
  | "brokerage"
  | "brokerage-auth"
  | "brokerage-paper"
  | "brokerage-data";
/** The balanced hosts: frontend name → the banner's service and host. */
const HOSTS: Record<HostName, [string, string?]> = {
  wearables: ["wearables"],
  crosschain: ["crosschain"],
  chainstats: ["chainstats"],
  brokerage: ["brokerage"],
  "brokerage-auth": ["brokerage", "auth"],
  "brokerage-paper": ["brokerage", "paper"],
  "brokerage-data": ["brokerage", "data"],
};

const databaseAndRedis = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

// Runs everywhere (the PGlite pass has nothing else of this file to run).
it("generates the balancer's config: a frontend per host, round-robin over every instance, checked, forwardfor", () => {
  const config = haproxyConfig(
    [
      { name: "wearables", servers: ["127.0.0.1:4001", "127.0.0.1:4002"] },
      { name: "brokerage-data", servers: ["127.0.0.1:5001", "127.0.0.1:5002"] },
    ],
    { wearables: 9001, "brokerage-data": 9002 },
  );
  expect(config).toMatch(/^\s+option forwardfor$/m);
  expect(config).toMatch(/^\s+default-server check /m);
  expect(config).toMatch(/^\s+timeout tunnel /m); // the WebSocket streams
  expect(config).toContain("frontend wearables\n  bind 127.0.0.1:9001\n  default_backend wearables");
  expect(config).toContain(
    "backend brokerage-data\n  balance roundrobin\n  server api1 127.0.0.1:5001\n  server api2 127.0.0.1:5002",
  );
});

if (databaseAndRedis && !haproxyInstalled()) {
  // CI sets both URLs and installs haproxy (.ci/run): a missing one must fail there, not skip.
  it("runs several instances behind HAProxy", () => {
    throw new Error(`no haproxy at ${HAPROXY}: apt-get install haproxy (or set HAPROXY_PATH)`);
  });
}

if (databaseAndRedis && haproxyInstalled()) {
  describe("three api instances and two workers behind HAProxy", { timeout: 120_000 }, () => {
    let env: Record<string, string>;
    let removeEnv: (() => Promise<void>) | undefined;
    let devnet: PlatformProcess | undefined;
    let manifest: DevnetManifest;
    const apis: PlatformProcess[] = [];
    const workers: PlatformProcess[] = [];
    let balancer: Balancer | undefined;
    let db: Database | undefined;
    /** Origin of each balanced host, by frontend name; base path of each. */
    let origin: Record<HostName, string>;
    let keys: Record<string, string>;
    const started = Date.now();
    const workerDirs: string[] = [];

    beforeAll(async () => {
      const made = await createPlatformEnv("multi", {
        ...EPHEMERAL_PORTS,
        DEVNET_CHAINS: `${A},${B}`,
        DEVNET_BLOCK_TIME: "0",
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        TRUST_PROXY: "1",
        AUTH_FAILURE_LIMIT: String(AUTH_FAILURE_LIMIT),
        CROSSCHAIN_POLL_MS: "100",
        CROSSCHAIN_RELAYER_LEASE_SEC: String(LEASE_SEC),
        CHAINSTATS_POLL_MS: "200",
        BROKERAGE_DATA_BACKFILL_DAYS: "0",
        BROKERAGE_DATA_STREAM_LEASE_SECONDS: "3",
        // The access lines (JSON, info) say which instance served what, from which client address.
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        LOG_REQUESTS: "true",
      });
      ({ env, remove: removeEnv } = made);
      // The chains, once for the suite, on the shared DATA_DIR (its manifest is what every instance reads).
      devnet = await startCommandProcess(["devnet"], env, "Ctrl-C stops the devnet", 120_000);
      manifest = JSON.parse(readFileSync(join(env.DATA_DIR as string, "devnet.json"), "utf8"));
      // A worker's data folder is its own (its admin socket is one per folder), with the devnet's manifest in
      // it; DEVNET_CHAINS="," says it runs no devnet chain itself: it reads the manifest, as the api instances do.
      const workerEnv = () => {
        const dataDir = mkdtempSync(join(tmpdir(), "platform-multi-worker-"));
        workerDirs.push(dataDir);
        symlinkSync(join(env.DATA_DIR as string, "devnet.json"), join(dataDir, "devnet.json"));
        return { ...env, DATA_DIR: dataDir, DEVNET_CHAINS: "," };
      };
      // All five start together on the fresh database, as a deployment's first roll-out does.
      const starting = [
        ...[1, 2, 3].map(() => startCommandProcess(["start", "--role", "api"], env, READY, 120_000)),
        ...[1, 2].map(() => startCommandProcess(["start", "--role", "worker"], workerEnv(), READY, 120_000)),
      ];
      const results = await Promise.allSettled(starting);
      for (const [i, r] of results.entries()) {
        if (r.status === "fulfilled") (i < 3 ? apis : workers).push(r.value);
      }
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;

      traderReady = createTrader().catch((error: Error) => error);
      statusReady = runPlatform(["status", "--json"], env);
      balancer = await startHaproxy(
        Object.entries(HOSTS).map(([name, [service, host]]) => ({
          name,
          servers: apis.map((p) => new URL(hostOrigin(p, service, host)).host),
        })),
        env.DATA_DIR as string,
      );
      origin = balancer.origins as Record<HostName, string>;
      // The demo keys are printed by the api instance that created them (maybe each did: they started together).
      keys = Object.assign({}, ...apis.map((p) => p.demoKeys));
      db = await createDatabase({ url: env.DATABASE_URL, dataDir: env.DATA_DIR as string });
      // The first deposit waits for the quote caches to warm up and for its fill: it runs beside the next tests.
      await manifestClient(manifestChain(manifest, B)).request({
        method: "anvil_mine" as never,
        params: ["0x100"] as never,
      });
      fetchRoute = routeAcrossFetchTo(origin.crosschain, keys.crosschain as string);
      firstDeposit = sdkDeposit("250").catch((error: Error) => error);
    }, 300_000);

    afterAll(async () => {
      fetchRoute?.restore();
      for (const s of streams) s.disconnect();
      await balancer?.stop();
      for (const p of [...apis, ...workers])
        if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
      if (devnet?.child.exitCode === null) await devnet.stop();
      await db?.close();
      await removeEnv?.();
      for (const dir of workerDirs) rmSync(dir, { recursive: true, force: true });
      process.stderr.write(`multiInstance: ${((Date.now() - started) / 1000).toFixed(1)} s in all\n`);
    }, 120_000);

    const streams: { disconnect(): void }[] = [];
    let fetchRoute: ReturnType<typeof routeAcrossFetchTo> | undefined;

    // ---- helpers -------------------------------------------------------------------------------------------

    const json = <T>(result: CommandResult): T => {
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as T;
    };
    const wearables = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("X-Service-API-Key", keys.wearables as string);
      return fetch(`${origin.wearables}/api/v1${path}`, { ...init, headers });
    };
    /** The relayer's lease of chain B (`crosschain.relayer:<chain>:<relayer address>`), with its holder's pid (`host:pid:random`). */
    const relayerLease = async (): Promise<{ name: string; holder: string; pid: number } | undefined> => {
      const name = `crosschain.relayer:${B}:${manifest.accounts.relayer.address.toLowerCase()}`;
      const [row] = await (db as Database).query<{ name: string; holder: string }>(
        `SELECT name, holder FROM platform.leases
         WHERE name = $1 AND holder IS NOT NULL AND expires_at > clock_timestamp()`,
        [name],
      );
      return row ? { ...row, pid: Number(row.holder.split(":").at(-2)) } : undefined;
    };
    /** The FilledRelay events of a deposit from A on B's SpokePool (the chain's own record of fills). */
    const fillsOnChain = async (depositId: bigint) => {
      const dest = manifestChain(manifest, B);
      const logs = await manifestClient(dest).getLogs({ address: dest.contracts.spokePool, fromBlock: 0n });
      return parseEventLogs({ abi: loadArtifact("Ethereum_SpokePool").abi, logs, eventName: "FilledRelay" }).filter(
        (e) => {
          const args = e.args as { depositId: bigint; originChainId: bigint };
          return args.depositId === depositId && args.originChainId === BigInt(A);
        },
      );
    };
    const depositStatus = async (depositId: bigint) =>
      (await (
        await fetch(`${origin.crosschain}/api/deposit/status?originChainId=${A}&depositId=${depositId}`, {
          headers: { authorization: `Bearer ${keys.crosschain}` },
        })
      ).json()) as { status?: string; fillTx?: string };
    /** A request from `localAddress` (any 127.x.y.z): HAProxy forwards it as the client's address. */
    const fromAddress = (url: string, localAddress: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(url, { localAddress, headers, agent: false }, (res) => {
          let body = "";
          res.on("data", (c) => {
            body += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
    /** The access lines an instance wrote so far. */
    const accessLines = (p: PlatformProcess) =>
      p
        .stdout()
        .split("\n")
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l) as { req: { url: string }; ip: string; status: number });

    // ---- brokerage: a user with a live and a paper account, a key pair for each --------------------------

    interface Trader {
      live: { keyId: string; secret: string };
      paper: { keyId: string; secret: string };
    }
    let trader: Trader;
    let traderReady: Promise<Trader | Error>;
    let statusReady: Promise<CommandResult>;
    /** The trader, made with the CLI (`platform brokerage users create`, `keys create`) while the suite begins. */
    const createTrader = async (): Promise<Trader> => {
      const run = async <T>(args: string[]) => {
        const r = await runPlatform(["brokerage", ...args, "--json"], env);
        if (r.code !== 0) throw new Error(`platform brokerage ${args.join(" ")}: ${r.stderr}`);
        return JSON.parse(r.stdout) as T;
      };
      const created = await run<{ accounts: { env: string; account_number: string }[] }>([
        "users",
        "create",
        "--email",
        "multi@example.com",
        "--password",
        "several instances",
      ]);
      const numberOf = (e: string) => created.accounts.find((a) => a.env === e)?.account_number as string;
      const [live, paper] = await Promise.all(
        [numberOf("live"), numberOf("paper")].map((n) =>
          run<{ key_id: string; secret_key: string }>(["keys", "create", "--account", n]),
        ),
      );
      return {
        live: { keyId: live?.key_id as string, secret: live?.secret_key as string },
        paper: { keyId: paper?.key_id as string, secret: paper?.secret_key as string },
      };
    };
    const tradeHeaders = (t = trader.live) => ({
      "APCA-API-KEY-ID": t.keyId,
      "APCA-API-SECRET-KEY": t.secret,
      "content-type": "application/json",
    });
    const placeOrder = async (symbol: string, qty: string, clientOrderId: string) => {
      const res = await fetch(`${origin.brokerage}/v2/orders`, {
        method: "POST",
        headers: tradeHeaders(),
        body: JSON.stringify({
          symbol,
          qty,
          side: "buy",
          type: "market",
          time_in_force: "day",
          client_order_id: clientOrderId,
        }),
      });
      const body = (await res.json()) as { id: string; client_order_id: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const tradeStream = async (): Promise<TradeUpdateLog> => {
      const stream = new streaming.TradingStream({
        url: `${origin.brokerage.replace(/^http/, "ws")}/stream`,
        credentials: trader.live,
        reconnect: false,
        pingIntervalMs: 0,
      });
      streams.push(stream);
      return listenToTradeUpdates(stream, 10_000);
    };
    /** Resolves once `log` has the order's `new` and its executions adding up to `qty`. */
    const orderStreamed = async (log: TradeUpdateLog, orderId: string, qty: number) => {
      await log.first((u) => u.order.id === orderId && u.event === "new", 20_000);
      await log.first((u) => u.order.id === orderId && u.event === "fill", 20_000);
      const executions = log.updates.filter((u) => u.order.id === orderId && u.event !== "new");
      expect(executions.reduce((sum, u) => sum + Number(u.qty), 0)).toBe(qty);
    };
    /** A market data stream of the data host, authorized or refused (then `error` says why). */
    const dataStream = async (credentials: { keyId: string; secret: string }) => {
      const stream = new streaming.StockDataStream({
        credentials,
        url: `${origin["brokerage-data"].replace(/^http/, "ws")}/v2/iex`,
        reconnect: false,
      });
      streams.push(stream);
      let error: string | undefined;
      let authorized = false;
      stream.onError((message: string) => {
        error = message;
      });
      stream.on("authorized", () => {
        authorized = true;
      });
      stream.connect();
      await pollUntil("data stream answered", async () => authorized || error !== undefined, Boolean, 15_000);
      return { stream, error };
    };
    /** The one-connection rule through the balancer: a second stream lands on another instance, and gets 406. */
    const oneDataConnection = async () => {
      // A slot freed a moment ago (or held by a killed instance) is free again within its lease (3 s here).
      const first = await pollUntil(
        "a first data stream",
        () => dataStream(trader.live),
        (s) => {
          if (s.error) s.stream.disconnect();
          return s.error === undefined;
        },
        20_000,
        500,
      );
      try {
        const second = await dataStream(trader.paper);
        expect(second.error).toBe("connection limit exceeded");
        second.stream.disconnect();
      } finally {
        first.stream.disconnect();
      }
      const third = await pollUntil(
        "the slot free again",
        () => dataStream(trader.paper),
        (s) => {
          if (s.error) s.stream.disconnect();
          return s.error === undefined;
        },
        20_000,
        250,
      );
      third.stream.disconnect();
    };

    // ---- crosschain: the app-sdk --------------------------------------------------------------------------

    const user = () => privateKeyToAccount(manifest.accounts.users[0]?.privateKey as `0x${string}`);
    const recipient = () => manifest.accounts.users[2]?.address as `0x${string}`;
    const acrossClient = () => {
      const origin_ = manifestChain(manifest, A);
      const dest = manifestChain(manifest, B);
      return createAcrossClient({
        integratorId: "0xbeef",
        chains: [viemChain(A, origin_.rpcUrl), viemChain(B, dest.rpcUrl)],
        rpcUrls: { [A]: origin_.rpcUrl, [B]: dest.rpcUrl },
        pollingInterval: 100,
      });
    };
    /** Quote (retried until the api instances' quote caches are warm) and execute; resolves once filled. */
    const sdkDeposit = async (amount: string) => {
      const client = acrossClient();
      const originChain = manifestChain(manifest, A);
      const dest = manifestChain(manifest, B);
      const quote = await pollUntil(
        "a quote through the balancer",
        () =>
          client
            .getQuote({
              route: {
                originChainId: A,
                destinationChainId: B,
                inputToken: manifestToken(originChain, "USDC").address,
                outputToken: manifestToken(dest, "USDC").address,
              },
              inputAmount: parseUnits(amount, 6),
              recipient: recipient(),
            })
            .catch(() => undefined),
        (q) => q !== undefined,
        30_000,
        500,
      );
      if (!quote) throw new Error("no quote");
      const walletClient = createWalletClient({
        account: user(),
        chain: viemChain(A, originChain.rpcUrl),
        transport: http(originChain.rpcUrl),
      });
      const result = await client.executeQuote({
        walletClient: walletClient as never,
        deposit: { ...quote.deposit, recipient: recipient() },
        onProgress: () => {},
      });
      expect(result.fillTxReceipt?.status).toBe("success");
      return { depositId: result.depositId as bigint, fillTx: result.fillTxReceipt?.transactionHash, quote };
    };

    const deposits: bigint[] = [];
    let firstDeposit: Promise<Awaited<ReturnType<typeof sdkDeposit>> | Error>;
    const orders: { id: string; clientOrderId: string; qty: number }[] = [];
    let importTask: { task_id: string; user_id: string } | undefined;
    let importedXml = "";
    let beforeKill: TradeUpdateLog;

    // ---- the flows ----------------------------------------------------------------------------------------

    it("balances every host over the three api instances, which see the client's address HAProxy forwards", async () => {
      expect(apis).toHaveLength(3);
      expect(workers).toHaveLength(2);
      const status = json<{ instances: { role: string; alive: boolean }[] }>(await statusReady);
      expect(
        status.instances
          .filter((i) => i.alive)
          .map((i) => i.role)
          .sort(),
      ).toEqual(["api", "api", "api", "worker", "worker"]);
      for (const [name, base] of Object.entries(origin)) {
        const res = await fetch(`${base}/`);
        expect(res.status, name).toBeLessThan(500);
      }
    });

    it("counts failed credentials across instances: the limit holds at the total, not per instance", async () => {
      // A client address of its own (loopback 127.x.y.z) keeps this count apart from every other test's.
      const address = `127.${1 + ((randomBytes(1)[0] as number) % 250)}.${randomBytes(1)[0]}.${1 + ((randomBytes(1)[0] as number) % 250)}`;
      const statuses: number[] = [];
      const sent = AUTH_FAILURE_LIMIT + 4;
      for (let i = 0; i < sent; i++) {
        // A spoofed X-Forwarded-For: with TRUST_PROXY=1 only the hop HAProxy added is believed.
        const r = await fromAddress(`${origin.wearables}/api/v1/users?probe=${address}-${i}`, address, {
          "X-Service-API-Key": `wrong-${i}`,
          "X-Forwarded-For": `198.51.100.${i}`,
        });
        statuses.push(r.status);
      }
      expect(statuses).toEqual([
        ...Array.from({ length: AUTH_FAILURE_LIMIT }, () => 401),
        ...Array.from({ length: sent - AUTH_FAILURE_LIMIT }, () => 429),
      ]);
      // Each instance served some of them, and logged HAProxy's client address.
      for (const p of apis) {
        const mine = accessLines(p).filter((l) => l.req.url.includes(`probe=${address}-`));
        expect(mine.length).toBeGreaterThan(0);
        expect(mine.length).toBeLessThan(AUTH_FAILURE_LIMIT);
        for (const l of mine) expect(l.ip).toBe(address);
      }
    });

    it("answers chainstats queries on the shared devnet", async () => {
      const head = Number(await manifestClient(manifestChain(manifest, A)).getBlockNumber());
      const url =
        `${origin.chainstats}/v2/api?chainid=${A}&module=stats&action=dailyblkcount` +
        `&startdate=2000-01-01&enddate=2100-01-01&apikey=${keys.chainstats}`;
      const body = await pollUntil(
        "chainstats indexed the devnet",
        async () => (await (await fetch(url)).json()) as { status: string; result: { blockCount: number }[] | string },
        (b) =>
          b.status === "1" && Array.isArray(b.result) && b.result.reduce((s, r) => s + r.blockCount, 0) >= head + 1,
        60_000,
        250,
      ).catch(async (error: Error) => {
        // What the workers' chainstats indexers (each worker runs one per chain) said meanwhile.
        const logs = workers.flatMap((w) =>
          w
            .stdout()
            .split("\n")
            .filter((l) => l.includes("chainstats") && /"level":[456]0/.test(l))
            .slice(-15)
            .map((l) => `pid ${w.child.pid}: ${l}`),
        );
        const checkpoints = await (db as Database)
          .query("SELECT * FROM chainstats.chains")
          .catch((e: Error) => e.message);
        throw new Error(`${error.message}\ncheckpoints ${JSON.stringify(checkpoints)}\n${logs.join("\n")}`);
      });
      expect(body.status).toBe("1");
    });

    it("creates a trader with the CLI, places orders and streams their updates", async () => {
      const made = await traderReady;
      if (made instanceof Error) throw made;
      trader = made;
      beforeKill = await tradeStream();
      for (const [symbol, qty] of [
        ["AAPL", 2],
        ["MSFT", 1],
        ["KO", 3],
      ] as const) {
        // Each on the next instance in turn: the update comes from a worker's exchange writer, to whichever
        // instance holds the stream.
        const placed = await placeOrder(symbol, String(qty), `multi-${symbol}`);
        orders.push({ id: placed.id, clientOrderId: placed.client_order_id, qty });
      }
      for (const o of orders) await orderStreamed(beforeKill, o.id, o.qty);
    });

    it("refuses a second market data stream of the user on another instance with 406", async () => {
      await oneDataConnection();
    });

    it("takes an Apple Health export upload (the worker imports it)", async () => {
      const created = await wearables("/users", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "multi@example.com" }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      importedXml = appleExportXml({ extraHeartRates: 20_000 });
      const form = new FormData();
      form.append("file", new Blob([importedXml]), "export.xml");
      const res = await wearables(`/users/${id}/import/apple/xml/direct`, { method: "POST", body: form });
      expect(res.status).toBe(200);
      importTask = (await res.json()) as { task_id: string; user_id: string };
    });

    it("fills an app-sdk deposit once and reports it", async () => {
      const done = await firstDeposit;
      if (done instanceof Error) throw done;
      deposits.push(done.depositId);
      const status = await pollUntil(
        "the deposit reported filled",
        () => depositStatus(done.depositId),
        (s) => s.status === "filled",
        20_000,
        100,
      );
      expect(status.fillTx).toBe(done.fillTx);
    });

    let killedAt = 0;
    let holderBefore: { name: string; holder: string; pid: number } | undefined;
    let survivor: PlatformProcess;

    it("SIGKILLs an api instance and the worker holding the relayer lease just after a deposit was mined", async () => {
      holderBefore = await pollUntil("a relayer lease of chain B", relayerLease, (l) => l !== undefined, 20_000, 100);
      const holding = workers.find((w) => w.child.pid === holderBefore?.pid);
      expect(holding, `lease ${JSON.stringify(holderBefore)} held by one of the workers`).toBeDefined();
      survivor = workers.find((w) => w !== holding) as PlatformProcess;
      const receipt = await depositUsdcByHand(manifest, {
        origin: A,
        destination: B,
        amount: parseUnits("40", 6),
        // A fee the relayer takes (its gas on the devnet costs about 0.33 USDC).
        outputAmount: parseUnits("39", 6),
      });
      const [event] = parseEventLogs({
        abi: loadArtifact("Ethereum_SpokePool").abi,
        logs: receipt.logs,
        eventName: "FundsDeposited",
      });
      if (!event) throw new Error("no FundsDeposited in the deposit's receipt");
      deposits.push((event.args as { depositId: bigint }).depositId);
      killedAt = Date.now();
      const killed = [holding as PlatformProcess, apis[0] as PlatformProcess];
      expect(await Promise.all(killed.map((p) => p.stop("SIGKILL")))).toEqual([null, null]);
    });

    it("the other worker takes the relayer lease within its lease time", async () => {
      const lease = await pollUntil(
        "the surviving worker holds the lease",
        relayerLease,
        (l) => l?.pid === survivor.child.pid,
        LEASE_SEC * 1000 + TAKEOVER_MARGIN_MS + 5_000,
        100,
      );
      const tookMs = Date.now() - killedAt;
      expect(lease?.name).toBe(holderBefore?.name);
      expect(tookMs).toBeLessThanOrEqual(LEASE_SEC * 1000 + TAKEOVER_MARGIN_MS);
      process.stderr.write(`multiInstance: relayer lease taken over ${tookMs} ms after the SIGKILL\n`);
    });

    it("fills the deposit made before the kill exactly once, and a new app-sdk deposit", async () => {
      const before = deposits[1] as bigint;
      await pollUntil(
        "deposit 2 filled",
        () => depositStatus(before),
        (s) => s.status === "filled",
        30_000,
        200,
      ).catch(async (error: Error) => {
        const intents = await (db as Database).query(
          "SELECT origin_chain_id, deposit_id::text, state, nonce, attempts, last_error, updated_at FROM crosschain.relayer_fills",
        );
        const leases = await (db as Database).query("SELECT * FROM platform.leases");
        const logs = survivor
          .stdout()
          .split("\n")
          .filter((l) => /relayer|"level":[45]0/.test(l))
          .slice(-40);
        throw new Error(
          `${error.message}\nintents ${JSON.stringify(intents)}\nleases ${JSON.stringify(leases)}\n${logs.join("\n")}`,
        );
      });
      const after = await sdkDeposit("120");
      deposits.push(after.depositId);
      await pollUntil(
        "deposit 3 reported",
        () => depositStatus(after.depositId),
        (s) => s.status === "filled",
        20_000,
      );
      for (const id of deposits) {
        expect((await fillsOnChain(id)).length, `FilledRelay events of deposit ${id}`).toBe(1);
        const [{ fills, intents } = { fills: -1, intents: -1 }] = await (db as Database).query<{
          fills: number;
          intents: number;
        }>(
          `SELECT (SELECT count(*)::int FROM crosschain.fills WHERE origin_chain_id = $1 AND deposit_id = $2) AS fills,
                  (SELECT count(*)::int FROM crosschain.relayer_fills WHERE origin_chain_id = $1 AND deposit_id = $2) AS intents`,
          [A, id.toString()],
        );
        expect({ id, fills, intents }).toEqual({ id, fills: 1, intents: 1 });
      }
    });

    it("streams the updates of orders placed after the kill; no order is lost or placed twice", async () => {
      const afterKill = await tradeStream();
      for (const [symbol, qty] of [
        ["AMD", 2],
        ["NVDA", 1],
      ] as const) {
        const placed = await placeOrder(symbol, String(qty), `multi-${symbol}`);
        orders.push({ id: placed.id, clientOrderId: placed.client_order_id, qty });
      }
      for (const o of orders.slice(3)) await orderStreamed(afterKill, o.id, o.qty);
      const res = await fetch(`${origin.brokerage}/v2/orders?status=all&limit=500`, { headers: tradeHeaders() });
      expect(res.status).toBe(200);
      const listed = (await res.json()) as {
        id: string;
        client_order_id: string;
        status: string;
        filled_qty: string;
      }[];
      expect(listed.map((o) => o.client_order_id).sort()).toEqual(orders.map((o) => o.clientOrderId).sort());
      for (const o of orders) {
        expect(listed.find((l) => l.id === o.id)).toMatchObject({ status: "filled", filled_qty: String(o.qty) });
      }
      // Each order's `new` was streamed once on the stream that saw it.
      for (const o of orders.slice(3)) {
        expect(afterKill.updates.filter((u) => u.order.id === o.id && u.event === "new")).toHaveLength(1);
      }
    });

    it("still refuses a second market data stream with 406 on the two instances left", async () => {
      await oneDataConnection();
    });

    it("completes the import once", async () => {
      const task = importTask as { task_id: string; user_id: string };
      const status = await pollUntil(
        "the import finished",
        async () =>
          (await (await wearables(`/users/${task.user_id}/imports/${task.task_id}`)).json()) as {
            state: string;
            samples_written: number;
            bytes_read: number;
          },
        (s) => s.state === "completed" || s.state === "failed",
        // A job the killed worker was running resumes once its lock (kernel worker's lockMs, 30 s after its
        // last heartbeat) has expired.
        60_000,
        250,
      );
      expect(status).toMatchObject({ state: "completed", bytes_read: Buffer.byteLength(importedXml) });
      const [row] = await (db as Database).query<{ jobs: number; samples: number }>(
        `SELECT (SELECT count(*)::int FROM wearables.import_jobs WHERE user_id = $1) AS jobs,
                (SELECT count(*)::int FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
                 WHERE d.user_id = $1) AS samples`,
        [task.user_id],
      );
      expect(row).toEqual({ jobs: 1, samples: status.samples_written });
      // The upload lived in the database (any worker reads it) until its import ended, and nothing of it stays:
      // not in the database, not in the receiving api instance's folder.
      const [files] = await (db as Database).query<{ n: number }>(
        "SELECT count(*)::int AS n FROM wearables.import_files WHERE import_id = $1",
        [task.task_id],
      );
      expect(files?.n).toBe(0);
      const uploads = join(env.DATA_DIR as string, "wearables", "imports");
      expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
    });

    it("answers chainstats after the kill", async () => {
      const res = await fetch(
        `${origin.chainstats}/v2/api?chainid=${B}&module=stats&action=dailyblkcount` +
          `&startdate=2000-01-01&enddate=2100-01-01&apikey=${keys.chainstats}`,
      );
      expect(((await res.json()) as { status: string }).status).toBe("1");
      // The balancer took the killed instance out of its rotation.
      await pollUntil(
        "HAProxy marked the killed instance down",
        async () => balancer?.output() ?? "",
        (out) => /api1 is DOWN/.test(out),
        10_000,
        100,
      );
    });
  });
}
