/**
 * Kill test: the dataworker runs in a child process that is SIGKILLed after every durable step of a bundle
 * (built, proposed, liveness passed, a pool leaf executed, tokens bridged, roots relayed, a refund leaf
 * executed, tokens returned to the hub, a slow leaf executed), each time restarted on the same database and
 * chains. At the end the bundle is executed once: one proposal, every step sent once, the relayer repaid
 * once, the expired deposit refunded once, the slow fill paid once.
 */
import { createBlockFetcher } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createLogger, type Database, hexToBytea, kernelMigrations } from "@platform/kernel";
import { createKillTestDatabase, type KillTestDatabase, killTestChildren } from "@platform/kernel/testing";
import { type Address, parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spokeChains } from "../deployments.ts";
import { crosschainService } from "../index.ts";
import { createSpokePoolIndexer } from "../indexer/spokePoolIndexer.ts";
import { advanceTime, tokenBalance, waitFor } from "../relayer/testSupport.ts";
import { createIndexerStore } from "../store/indexerStore.ts";
import { contextChains, fillDeposit, type MadeDeposit, makeDeposit, spokeAbi } from "../testing/spokePoolActions.ts";
import type { SettlementStep } from "./bundleSteps.ts";
import { startDataworker } from "./dataworker.ts";
import type { ChildConfig } from "./killChild.ts";

const HUB = 1;
const SPOKE = 10;
const CHILD = new URL("./killChild.ts", import.meta.url);
const STEPS: SettlementStep[] = [
  "built",
  "proposed",
  "liveness-passed",
  "pool-leaf-executed",
  "tokens-bridged",
  "roots-relayed",
  "refund-leaf-executed",
  "returned-to-hub",
  "slow-leaf-executed",
];
const logger = createLogger({ level: process.env.SETTLEMENT_TEST_LOG ?? "silent" });

let f: DevnetFixture;
let database: KillTestDatabase;
const children = killTestChildren();

beforeAll(async () => {
  [f, database] = await Promise.all([
    startDevnetFixture({ chainIds: [HUB, SPOKE] }),
    createKillTestDatabase({
      name: "settlement",
      migrations: [...kernelMigrations(), ...crosschainService.migrations],
    }),
  ]);
});

afterAll(async () => {
  children.killAll();
  await database?.drop();
  await f?.stop();
});

async function indexAll(db: Database) {
  for (const chain of spokeChains(contextChains(f))) {
    const indexer = createSpokePoolIndexer({
      chain,
      store: createIndexerStore(db),
      fetcher: createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 50, concurrency: 1 }),
      maxRange: 1000,
      logger,
    });
    for (let n = 0; n < 100 && !(await indexer.step()); n++);
  }
}

function spawnChild(crashAt: SettlementStep) {
  const config: ChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    chains: spokeChains(contextChains(f)),
    privateKey: f.accounts.admin.privateKey,
    crashAt,
  };
  let crashLine: string | undefined;
  const child = children.spawn({
    script: CHILD,
    env: { SETTLEMENT_CHILD_CONFIG: JSON.stringify(config) },
    onStdout(out) {
      const line = out.split("\n").find((l) => l.startsWith("CRASH "));
      if (line && !crashLine) {
        crashLine = line;
        child.kill();
      }
    },
  });
  return {
    async go() {
      const end = await child.go(30_000);
      if (crashLine && end === "SIGKILL") return crashLine;
      throw new Error(`child ended (${String(end)}) without reaching ${crashAt}:\n${child.out}\n${child.err}`);
    },
  };
}

it("a dataworker SIGKILLed after every step of a bundle settles it exactly once", async () => {
  const relayer = f.accounts.relayer.address;
  const depositor = f.accounts.users[1]?.address as Address;
  const recipient = f.accounts.users[2]?.address as Address;
  const before = {
    relayer: await tokenBalance(f, HUB, "USDC", relayer),
    depositor: await tokenBalance(f, SPOKE, "USDC", depositor),
    recipient: await tokenBalance(f, HUB, "USDC", recipient),
  };
  const deposit = (o: { amount: string; user?: number; recipient?: Address; deadline?: number }) =>
    makeDeposit(f, {
      origin: SPOKE,
      destination: HUB,
      inputAmount: parseUnits(o.amount, 6),
      outputAmount: parseUnits(o.amount, 6) - 10_000n,
      user: o.user,
      recipient: o.recipient,
      fillDeadlineOffset: o.deadline,
    });
  const filled = await deposit({ amount: "40" });
  await fillDeposit(f, filled);
  const expiring = await deposit({ amount: "15", user: 1, deadline: 30 });
  const slow: MadeDeposit = await deposit({ amount: "12", recipient });
  const requester = f.walletClient(HUB, f.accounts.users[0] as (typeof f.accounts.users)[number]);
  await f.publicClient(HUB).waitForTransactionReceipt({
    hash: await requester.writeContract({
      address: f.chain(HUB).contracts.spokePool,
      abi: spokeAbi,
      functionName: "requestSlowFill",
      args: [slow.relayData],
    }),
  });
  await advanceTime(f, HUB, 60);
  let db = await database.open();
  await indexAll(db);
  await database.close(db);

  let next = spawnChild(STEPS[0] as SettlementStep);
  for (const [i, step] of STEPS.entries()) {
    const current = next;
    const following = STEPS[i + 1];
    if (following) next = spawnChild(following);
    expect(await current.go()).toMatch(new RegExp(`^CRASH ${step} `));
  }

  db = await database.open();
  const worker = startDataworker({
    db,
    chains: spokeChains(contextChains(f)),
    privateKey: f.accounts.admin.privateKey,
    logger,
    intervalMs: 50,
    endBlockBuffer: 0,
    fastLiveness: true,
    leaseTtlMs: 2_000,
  });
  try {
    await waitFor(
      "the bundle executed",
      async () => (await db.query("SELECT 1 FROM crosschain.bundles WHERE status = 'executed'")).length > 0,
      30_000,
    );
  } finally {
    await worker?.stop();
  }

  const bundles = await db.query<{ status: string }>("SELECT status FROM crosschain.bundles");
  expect(bundles.map((b) => b.status)).toEqual(["executed"]);
  const txs = await db.query<{ step: string; state: string }>(
    "SELECT step, state FROM crosschain.settlement_txs WHERE state <> 'dropped' ORDER BY id",
  );
  expect(txs.filter((t) => t.step === "propose")).toHaveLength(1);
  expect(txs.every((t) => t.state === "confirmed")).toBe(true);
  expect(new Set(txs.map((t) => t.step)).size).toBe(txs.length);

  const item = async (kind: string, d: MadeDeposit) => {
    const [row] = await db.query<{ amount: string }>(
      "SELECT amount FROM crosschain.bundle_items WHERE kind = $1 AND relay_hash = $2",
      [kind, hexToBytea(d.internalRelayHash)],
    );
    return BigInt(row?.amount ?? -1);
  };
  expect(await tokenBalance(f, HUB, "USDC", relayer)).toBe(
    before.relayer - filled.relayData.outputAmount + (await item("fillRefund", filled)),
  );
  expect(await tokenBalance(f, SPOKE, "USDC", depositor)).toBe(before.depositor);
  expect(await item("expiredRefund", expiring)).toBe(expiring.relayData.inputAmount);
  expect(await tokenBalance(f, HUB, "USDC", recipient)).toBe(before.recipient + (await item("slowFill", slow)));
  await database.close(db);
}, 240_000);
