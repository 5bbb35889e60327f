/**
 * The SpokePool indexer and the integrator-id pass SIGKILLed at random instants while they work through
 * 600 deposits in 40 blocks (one block per range, so kills land inside and between range transactions), then run to
 * the head: every deposit is stored exactly once, every integrator id is read, both checkpoints are at
 * the head. Runs on a PGlite folder, or on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type DevnetFixture,
  type ReplayableRandom,
  replayableRandom,
  startDevnetFixture,
} from "@platform/chains/testing";
import { byteaToHex, createDatabase, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spokeChains } from "../deployments.ts";
import { crosschainService } from "../index.ts";
import { contextChains, mineDeposits } from "../testing/spokePoolActions.ts";
import type { IndexerChildConfig } from "./killChild.ts";

const A = 8453;
const B = 10;
const DEPOSITS = 600;
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const CHILD = fileURLToPath(new URL("./killChild.ts", import.meta.url));

let f: DevnetFixture;
let pg: TestDatabase | undefined;
let dataDir: string;

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  // Every third deposit carries the app-sdk's integrator tag.
  await mineDeposits(f, {
    origin: A,
    destination: B,
    count: DEPOSITS,
    perBlock: 15,
    integratorId: (i) => (i % 3 === 0 ? "0xbeef" : undefined),
  });
  dataDir = mkdtempSync(join(tmpdir(), "indexer-kill-"));
  if (process.env.TEST_DATABASE_URL) pg = await createTestDatabase();
  const db = pg?.db ?? (await createDatabase({ dataDir }));
  await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
  if (!pg) await db.close();
}, 120_000);

afterAll(async () => {
  await pg?.drop();
  await f?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function storedDeposits(): Promise<number> {
  const db = pg?.db ?? (await createDatabase({ dataDir }));
  try {
    const [row] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
    return Number(row?.n);
  } finally {
    if (!pg) await db.close();
  }
}

function runChild(mode: IndexerChildConfig["mode"], random: ReplayableRandom): Promise<void> {
  const config: IndexerChildConfig = { url: pg?.url, dataDir, chains: spokeChains(contextChains(f)), mode };
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    cwd: ROOT,
    env: { ...process.env, INDEXER_CHILD_CONFIG: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (c) => {
    err += c;
  });
  // Killed after 1–6 stored ranges of deposits (of 40), a random 0–30 ms later: inside or between range
  // transactions, and while the integrator-id pass works behind.
  const killAfter = 1 + Math.floor(random.next() * 6);
  const killDelayMs = random.next() * 30;
  let stored = 0;
  child.stdout.on("data", (c) => {
    stored += String(c).split("STORED").length - 1;
    if (stored >= killAfter && !child.killed) setTimeout(() => child.kill("SIGKILL"), killDelayMs);
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      if (mode === "run" ? signal === "SIGKILL" : code === 0) resolve();
      else reject(new Error(`indexer child (${mode}) ended with ${signal ?? code}: ${err}`));
    });
  });
}

it("survives SIGKILL at any instant: each deposit stored once, every integrator id read, checkpoints at the head", async () => {
  const progress: number[] = [];
  const random = replayableRandom(); // KILL_TEST_SEED replays the kill timings of a failed run
  for (let i = 0; i < 4; i++) {
    await runChild("run", random);
    progress.push(await storedDeposits());
  }
  // Each run stored more, resuming from the last one's checkpoint (nothing stored was lost).
  expect(progress[0]).toBeGreaterThan(0);
  for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1] as number);
  expect(progress.at(-1)).toBeLessThan(DEPOSITS);
  if (process.env.INDEXER_TEST_LOG) console.log("deposits stored after each kill:", progress);
  await runChild("finish", random);

  const head = await f.publicClient(A).getBlockNumber();
  const db = pg?.db ?? (await createDatabase({ dataDir }));
  try {
    const [counts] = await db.query<{ n: string; ids: string; tagged: string; untagged_null: string }>(
      `SELECT count(*) AS n, count(DISTINCT deposit_id) AS ids,
              count(*) FILTER (WHERE integrator_id = '0xbeef') AS tagged,
              count(*) FILTER (WHERE integrator_id IS NULL) AS untagged_null
         FROM crosschain.deposits WHERE origin_chain_id = $1`,
      [A],
    );
    expect(counts).toEqual({
      n: String(DEPOSITS),
      ids: String(DEPOSITS),
      tagged: String(DEPOSITS / 3),
      untagged_null: String(DEPOSITS - DEPOSITS / 3),
    });
    const [cp] = await db.query<{ next_block: string; integrator_next_block: string }>(
      "SELECT next_block, integrator_next_block FROM crosschain.chains WHERE chain_id = $1",
      [A],
    );
    expect(BigInt(cp?.next_block as string)).toBe(head + 1n);
    expect(cp?.integrator_next_block).toBe(cp?.next_block);
    // The stored block hashes are the chain's.
    const blocks = await db.query<{ number: string; hash: Buffer }>(
      "SELECT number, hash FROM crosschain.blocks WHERE chain_id = $1 ORDER BY number DESC LIMIT 5",
      [A],
    );
    for (const b of blocks) {
      const onChain = await f.publicClient(A).getBlock({ blockNumber: BigInt(b.number) });
      expect(byteaToHex(b.hash)).toBe(onChain.hash);
    }
  } finally {
    if (!pg) await db.close();
  }
}, 180_000); // child processes in turn: 8–23 s on CI (each waits for its killed predecessor's lease), too close to the default 30 s
