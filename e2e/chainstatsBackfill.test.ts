/**
 * `platform chainstats backfill`, killed with SIGKILL at random instants while it writes, then run to
 * the head: the stored blocks and daily rollups are exactly those of the chain (nothing lost, nothing
 * counted twice). Runs on PGlite, or on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AnvilNode, startAnvil } from "@platform/chains";
import { type ReplayableRandom, replayableRandom } from "@platform/chains/testing";
import { createBlocksRepository } from "@platform/chainstats";
import { expectedDays, rpc } from "@platform/chainstats/testing";
import { createDatabase } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runPlatform } from "./support/platformProcess.ts";

const BIN = fileURLToPath(new URL("../packages/platform/bin/platform.js", import.meta.url));
const CHAIN = 1337;
const GENESIS = Date.UTC(2026, 2, 1) / 1000;
const BLOCKS = 1_200;

let anvil: AnvilNode;
let database: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN, port: 0, genesisTimestamp: GENESIS });
  // 1,200 blocks five minutes apart: a little over four UTC days.
  await rpc(anvil.rpcUrl, "anvil_mine", [`0x${BLOCKS.toString(16)}`, "0x12c"]);
  env = {
    DATA_DIR: mkdtempSync(join(tmpdir(), "chainstats-e2e-")),
    DEVNET: "false",
    LOG_LEVEL: "warn",
    CHAIN_RPC_URLS: `${CHAIN}=${anvil.rpcUrl}`,
    CHAINSTATS_WINDOW_SIZE: "25",
    CHAINSTATS_BATCH_SIZE: "5",
    CHAINSTATS_CONCURRENCY: "1",
  };
  if (process.env.TEST_DATABASE_URL) {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url as string;
  }
});

afterAll(async () => {
  await anvil?.stop();
  await database?.drop();
  rmSync(env.DATA_DIR as string, { recursive: true, force: true });
});

/** Starts a backfill and SIGKILLs it a random moment (100–500 ms) after it reported progress. */
function killMidway(random: ReplayableRandom): Promise<void> {
  const killDelayMs = 100 + random.next() * 400;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "chainstats", "backfill", "--chain", String(CHAIN)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c) => {
      err += c;
      if (/\d+\/[\d,]+ blocks/.test(err) && !child.killed) {
        setTimeout(() => child.kill("SIGKILL"), killDelayMs);
      }
    });
    child.on("exit", (code, signal) =>
      signal === "SIGKILL" ? resolve() : reject(new Error(`exited ${code}: ${err}`)),
    );
  });
}

it("survives SIGKILL at any instant and ends with exactly the chain's figures", async () => {
  const random = replayableRandom(); // KILL_TEST_SEED replays the kill timings of a failed run
  for (let i = 0; i < 3; i++) await killMidway(random);
  const final = await runPlatform(["chainstats", "backfill", "--chain", String(CHAIN), "--exit-when-synced"], env);
  expect(final.code, final.stderr).toBe(0);
  const resumed = /\((\d+) blocks this run/.exec(final.stderr);
  expect(Number(resumed?.[1])).toBeLessThan(BLOCKS + 1); // earlier runs' work was kept

  const db = database?.db ?? (await createDatabase({ dataDir: env.DATA_DIR as string }));
  try {
    const [count] = await db.query<{ n: string; max: string }>(
      "SELECT count(*) AS n, max(number) AS max FROM chainstats.blocks WHERE chain_id = $1",
      [CHAIN],
    );
    expect(count).toEqual({ n: String(BLOCKS + 1), max: String(BLOCKS) });
    const repository = createBlocksRepository(db);
    const records = async (action: "dailyblkcount" | "dailygasused" | "dailyavggaslimit") =>
      JSON.parse((await repository.dailyRecords(CHAIN, action, "2026-01-01", "2026-12-31", "asc")).json);
    const expected = await expectedDays(anvil.rpcUrl);
    const base = (d: (typeof expected)[number]) => ({ UTCDate: d.UTCDate, unixTimeStamp: d.unixTimeStamp });
    expect(await records("dailyblkcount")).toEqual(expected.map((d) => ({ ...base(d), blockCount: d.blockCount })));
    expect(await records("dailygasused")).toEqual(expected.map((d) => ({ ...base(d), gasUsed: d.gasUsed })));
    expect(await records("dailyavggaslimit")).toEqual(expected.map((d) => ({ ...base(d), gasLimit: d.gasLimit })));
  } finally {
    if (!database) await db.close();
  }
}, 120_000); // child processes in turn: 8–23 s on CI, too close to the default 30 s
