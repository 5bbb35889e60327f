/**
 * Kill test: the relayer runs in a child process and is SIGKILLed at each crash-relevant point of a fill
 * (intent written but not broadcast; broadcast but not recorded; recorded 'sent' but not confirmed), then
 * restarted on the same database. At the end every deposit is filled exactly once on chain
 * (fillStatuses == Filled, one FilledRelay), the recipient got exactly the output amounts, every intent is
 * 'confirmed' after one attempt, and the relayer's key sent nothing beyond the fills (and one approval).
 *
 * The database must outlive the killed process: PGlite in a temporary folder, as the platform runs by
 * default (or a PostgreSQL database when TEST_DATABASE_URL is set), closed here before each child runs
 * (a PGlite folder has one user at a time); see createKillTestDatabase.
 */
import { manifestToken } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createLogger, kernelMigrations } from "@platform/kernel";
import { createKillTestDatabase, type KillTestDatabase, killTestChildren } from "@platform/kernel/testing";
import { erc20Abi, parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addressToBytes32 } from "../domain/relayHash.ts";
import { crosschainService } from "../index.ts";
import {
  depositAndIndex,
  filledRelayLogs,
  fillStatusOf,
  fixtureChains,
  intentOf,
  type MadeDeposit,
  tokenBalance,
  waitFor,
} from "../testing/index.ts";
import { startRelayer } from "./index.ts";
import type { ChildConfig } from "./killChild.ts";
import type { FillStep } from "./types.ts";

const A = 8453;
const B = 10;
const CHILD = new URL("./killChild.ts", import.meta.url);

let f: DevnetFixture;
let database: KillTestDatabase;
/** Every child this file started (killed in afterAll if a failed test left one waiting). */
const children = killTestChildren();

beforeAll(async () => {
  [f, database] = await Promise.all([
    startDevnetFixture({ chainIds: [A, B] }),
    createKillTestDatabase({ name: "relayer", migrations: [...kernelMigrations(), ...crosschainService.migrations] }),
  ]);
});

afterAll(async () => {
  children.killAll();
  await database?.drop();
  await f?.stop();
});

interface Child {
  /** Lets the child open the database and run; resolves with its CRASH line once it is SIGKILLed there. */
  go(): Promise<string>;
}

/**
 * Starts a relayer child that will stall at `crashAt`. It loads its modules right away (seconds) and waits
 * for `go()`, so the next child can load while the current one runs.
 */
function spawnChild(crashAt: FillStep): Child {
  const config: ChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    chains: fixtureChains(f),
    privateKey: f.accounts.relayer.privateKey,
    destinationChainIds: [B],
    crashAt,
  };
  let crashLine: string | undefined;
  const child = children.spawn({
    script: CHILD,
    env: { RELAYER_CHILD_CONFIG: JSON.stringify(config) },
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
      const end = await child.go(25_000);
      if (crashLine && end === "SIGKILL") return crashLine;
      throw new Error(`child ended (${String(end)}) without reaching ${crashAt}:\n${child.out}\n${child.err}`);
    },
  };
}

it("a relayer SIGKILLed at every step of a fill fills each deposit exactly once after restarts", async () => {
  const recipient = f.accounts.users[1]!.address;
  const me = f.accounts.relayer.address;
  const client = f.publicClient(B);
  const nonceBefore = await client.getTransactionCount({ address: me });
  const allowanceBefore = await client.readContract({
    address: manifestToken(f.chain(B), "USDC").address,
    abi: erc20Abi,
    functionName: "allowance",
    args: [me, f.chain(B).contracts.spokePool],
  });
  const balanceBefore = await tokenBalance(f, B, "USDC", recipient);

  const child1 = spawnChild("intent-written");
  const child2 = spawnChild("broadcast");
  let db = await database.open();
  const deposits: MadeDeposit[] = [];
  for (const amount of ["10", "20", "30"]) {
    deposits.push(
      await depositAndIndex(f, db, {
        origin: A,
        destination: B,
        inputAmount: parseUnits(amount, 6),
        outputAmount: parseUnits(amount, 6) - 1000n,
        recipient,
      }),
    );
  }
  const [d1, d2] = deposits as [MadeDeposit, MadeDeposit, MadeDeposit];
  await database.close(db);

  // (Each restart reads the database the killed process left; it is opened here only at the end, as
  // every open of a PGlite folder costs a second.)
  // 1. Killed after d1's intent was written ('sending', nonce and signed hash), before the broadcast.
  const crash1 = await child1.go();
  expect(crash1).toMatch(/^CRASH intent-written \d+ 0x[0-9a-f]{64}$/);
  expect(await fillStatusOf(f, B, d1.relayHash)).toBe(0);
  const firstHash = crash1.split(" ")[3] as `0x${string}`;
  expect(await client.getTransaction({ hash: firstHash }).catch(() => undefined)).toBeUndefined();

  // 2. Killed right after the broadcast (automine: mined), before 'sent' was recorded: the restart found
  // d1 'sending' with a hash the node never saw and re-sent it with the same nonce.
  const child3 = spawnChild("sent-recorded");
  const crash2 = await child2.go();
  expect(crash2.split(" ")[2]).toBe(crash1.split(" ")[2]);
  expect(await fillStatusOf(f, B, d1.relayHash)).toBe(2);
  expect(await fillStatusOf(f, B, d2.relayHash)).toBe(0);

  // 3. Killed after 'sent' was recorded: the restart confirmed d1 by its receipt, then sent d2.
  const crash3 = await child3.go();
  expect(Number(crash3.split(" ")[2])).toBe(Number(crash1.split(" ")[2]) + 1);
  expect(await fillStatusOf(f, B, d2.relayHash)).toBe(2);
  db = await database.open();
  expect((await intentOf(db, d1))?.state).toBe("confirmed");
  expect((await intentOf(db, d2))?.state).toBe("sent");
  // The DB is now used in-process: the last restart runs to completion here.
  const relayer = startRelayer({
    db,
    chains: fixtureChains(f),
    privateKey: f.accounts.relayer.privateKey,
    logger: createLogger({ level: process.env.RELAYER_TEST_LOG ?? "silent" }),
    pollMs: 50,
    marginBps: 0,
    isRouteEnabled: () => true,
    destinationChainIds: [B],
    // As the children's: it tries the killed child's lease every ttl/3, and takes it once expired.
    tuning: { leaseTtlSec: 2 },
  });
  try {
    await waitFor("every intent confirmed", async () => {
      for (const d of deposits) if ((await intentOf(db, d))?.state !== "confirmed") return false;
      return true;
    });
  } finally {
    await relayer.stop();
  }

  let total = 0n;
  for (const d of deposits) {
    expect(await fillStatusOf(f, B, d.relayHash)).toBe(2);
    const logs = await filledRelayLogs(f, d);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.args.relayer).toBe(addressToBytes32(me));
    const intent = await intentOf(db, d);
    expect(intent).toMatchObject({ state: "confirmed", attempts: 1, last_error: null });
    expect(intent?.tx_hash).toBe(logs[0]?.transactionHash);
    total += d.relayData.outputAmount;
  }
  expect(await tokenBalance(f, B, "USDC", recipient)).toBe(balanceBefore + total);
  // Exactly three fills (and the one approval) came from the relayer's key: nothing was sent twice.
  const approvals = allowanceBefore === 0n ? 1 : 0;
  expect((await client.getTransactionCount({ address: me })) - nonceBefore).toBe(3 + approvals);
  await database.close(db);
}, 120_000); // child processes in turn: 8–23 s on CI, too close to the default 30 s
