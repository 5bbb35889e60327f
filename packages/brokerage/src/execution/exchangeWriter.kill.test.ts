/**
 * Kill test of the exchange writer: it runs in a child process (killChild.ts) that is SIGKILLed, round after
 * round, at a random point of its database traffic (before or after a statement of a command's or a
 * tick's transaction, or right after a commit) or at a random instant by the clock; in between, the test
 * places orders of live and paper accounts through the orders service (market, limit marketable or
 * resting, some large enough to fill partially, stops, notional buys) and cancels and replaces open ones.
 * After every kill, and after a final writer drained everything (every open order canceled), the ledger
 * read back from the database must hold (testing/ledgerInvariants.ts): fills, events, positions and cash
 * agree, no fill twice, nothing lost, nothing stuck, no account without margin overspent. Nothing may wait
 * parked either: the market is always open and the flow has no bracket legs (`held`), so at the end every
 * command is done and every order has ended.
 *
 * The database outlives the killed process: a PGlite folder, used by one process at a time (the test
 * between the children), or PostgreSQL when TEST_DATABASE_URL is set (createKillTestDatabase). The killed writer never releases
 * its lease (`brokerage.exchange-writer` in platform.leases, 10 s): the test expires it, as time would, before the
 * next writer starts.
 * KILL_TEST_SEED replays the kill points and the order flow of a failed run (prices follow the clock).
 */
import { type ReplayableRandom, replayableRandom } from "@platform/chains/testing";
import { createLogger, type Database, kernelMigrations } from "@platform/kernel";
import { createKillTestDatabase, type KillTestDatabase, killTestChildren } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createMarketService } from "../services/market.ts";
import { createOrdersService } from "../services/orders.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { brokerageMigrations } from "../testing/brokerageDatabase.ts";
import { ledgerViolations } from "../testing/ledgerInvariants.ts";
import { seededRandom } from "../testing/randomOrderFlow.ts";
import { type FlowAccount, runOrderFlow } from "../testing/writerOrderFlow.ts";
import { createExchangeWriter, EXCHANGE_WRITER_LEASE } from "./exchangeWriter.ts";
import type { ExchangeChildConfig } from "./killChild.ts";

const ROUNDS = 10;
const CHILD = new URL("./killChild.ts", import.meta.url);
const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });

/** The shared database; a connection to it is closed before a child runs when it is PGlite (one process at a time). */
let database: KillTestDatabase;
const accounts: FlowAccount[] = [];
/** Every child this file started (killed in afterAll if a failed test left one running). */
const children = killTestChildren();

beforeAll(async () => {
  database = await createKillTestDatabase({
    name: "exchange",
    migrations: [...kernelMigrations(), ...brokerageMigrations()],
  });
  const db = await database.open();
  const users = createUsersRepository(db);
  // Three traders, each with a live and a paper account; the first two without margin (multiplier 1),
  // with little cash so that their orders reach the limit of their buying power.
  for (const [i, cash, multiplier] of [
    [0, "15000", "1"],
    [1, "40000", "1"],
    [2, "100000", "4"],
  ] as const) {
    const user = await users.insertWithAccounts({
      email: `kill-trader-${i}@example.com`,
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
      startingCash: cash,
      paperAccounts: 1,
    });
    for (const a of user.accounts) {
      await db.query("UPDATE brokerage.accounts SET max_margin_multiplier = $2 WHERE id = $1", [a.id, multiplier]);
      accounts.push({ id: a.id, env: a.env, margin: multiplier !== "1" });
    }
  }
  await database.close(db);
}, 60_000);

afterAll(async () => {
  children.killAll();
  await database?.drop();
});

interface Child {
  /** Lets the child open the database and run; resolves with how it died once it is SIGKILLed. */
  go(): Promise<string>;
}

/**
 * Starts a writer child that loads its modules right away (seconds) and waits for `go()`, so the next
 * child loads while the current one runs. Seven in ten die at a drawn point of their database traffic
 * (the first 80 points: rebuilding, the round's commands, the first ticks: the writer commits a round's
 * commands together, a dozen statements, so most drawn points fall in or right around that batch), the
 * others at a drawn instant.
 */
function spawnChild(random: ReplayableRandom): Child {
  const byPoint = random.next() < 0.7;
  const killAt = 1 + Math.floor(random.next() * 80);
  // By the clock: 50 ms to 2.5 s after the writer started (also the fallback when the points run out).
  const killAfterMs = byPoint ? 2_500 : 50 + Math.floor(random.next() * 2_450);
  const config: ExchangeChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    killAt: byPoint ? killAt : undefined,
  };
  let timer: NodeJS.Timeout | undefined;
  const child = children.spawn({
    script: CHILD,
    env: { EXCHANGE_CHILD_CONFIG: JSON.stringify(config) },
    onStdout(out) {
      if (!timer && out.includes("STARTED\n")) timer = setTimeout(() => child.kill(), killAfterMs);
    },
  });
  return {
    async go() {
      const end = await child.go(30_000);
      clearTimeout(timer);
      if (end !== "SIGKILL") {
        child.kill();
        throw new Error(`writer child ended (${String(end)}) without being killed:\n${child.out}\n${child.err}`);
      }
      return child.out.split("\n").find((l) => l.startsWith("KILL ")) ?? `KILL by the clock after ${killAfterMs} ms`;
    },
  };
}

/** The orders service as the brokerage builds it (services/index.ts), over `db`. */
const ordersOver = (db: Database) =>
  createOrdersService({
    db,
    orders: createOrdersRepository(db),
    market,
  });

/** The killed writer's lease is left to expire (10 s); we let it expire now: its holder is dead. */
const expireLease = (db: Database) =>
  db.query("UPDATE platform.leases SET expires_at = clock_timestamp() WHERE name = $1", [EXCHANGE_WRITER_LEASE]);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("a writer SIGKILLed at random points redoes exactly what did not commit: no fill lost or doubled", async () => {
  const random = replayableRandom(); // KILL_TEST_SEED replays the kill points and the order flow
  const flowRandom = seededRandom(random.seed);
  const placed = new Set<string>();
  const kills: string[] = [];
  let next = spawnChild(random);
  for (let round = 0; round < ROUNDS; round++) {
    const db = await database.open();
    expect(await ledgerViolations(db), `after kill ${round}: ${kills.at(-1)}`).toEqual([]);
    await expireLease(db);
    const ids = await runOrderFlow({ orders: ordersOver(db), db, market, accounts, random: flowRandom, actions: 20 });
    for (const id of ids) placed.add(id);
    await database.close(db);
    const child = next;
    if (round + 1 < ROUNDS) next = spawnChild(random);
    kills.push(await child.go());
  }

  // The last restart runs here until every command is done and every order, canceled, has ended.
  const db = await database.open();
  try {
    expect(await ledgerViolations(db), `after kill ${ROUNDS}: ${kills.at(-1)}`).toEqual([]);
    await expireLease(db);
    const logger = createLogger({ level: process.env.EXCHANGE_TEST_LOG || "silent" });
    const writer = createExchangeWriter({ db, market, logger });
    const orders = ordersOver(db);
    writer.start();
    try {
      await waitFor("every command done", async () => (await pendingCommands(db)) === 0);
      for (const a of accounts) await orders.cancelAll(a.id);
      await waitFor("every order ended", async () => (await pendingCommands(db)) === 0 && (await openOrders(db)) === 0);
    } finally {
      await writer.stop();
    }
    expect(await ledgerViolations(db, { final: true })).toEqual([]);

    // Nothing accepted was lost; the flow did trade: fills, partial fills, on both venues.
    const [stats] = await db.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM brokerage.orders) AS orders,
         (SELECT count(*) FROM brokerage.activities WHERE activity_type = 'FILL') AS fills,
         (SELECT count(*) FROM brokerage.activities WHERE activity_type = 'FILL' AND type = 'partial_fill') AS partials,
         (SELECT count(DISTINCT a.env) FROM brokerage.activities f JOIN brokerage.accounts a ON a.id = f.account_id
           WHERE f.activity_type = 'FILL') AS venues,
         (SELECT count(*) FROM brokerage.orders WHERE status = 'replaced') AS replaced`,
    );
    const stored = await db.query<{ id: string }>("SELECT id FROM brokerage.orders");
    expect(stored.map((o) => o.id).sort()).toEqual([...placed].sort());
    expect(Number(stats?.fills)).toBeGreaterThan(20);
    expect(Number(stats?.partials)).toBeGreaterThan(0);
    expect(Number(stats?.venues)).toBe(2);
    expect(Number(stats?.replaced)).toBeGreaterThan(0);
    if (process.env.EXCHANGE_TEST_LOG) console.log({ stats, kills });
  } finally {
    await database.close(db);
  }
}, 120_000);

const pendingCommands = async (db: Database) =>
  Number(
    (await db.query<{ n: string }>("SELECT count(*) AS n FROM brokerage.order_commands WHERE done_at IS NULL"))[0]?.n,
  );
const openOrders = async (db: Database) =>
  Number(
    (
      await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM brokerage.orders
         WHERE status NOT IN ('filled', 'canceled', 'expired', 'rejected', 'replaced', 'done_for_day')`,
      )
    )[0]?.n,
  );
