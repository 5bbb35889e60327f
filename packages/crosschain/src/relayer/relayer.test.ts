/**
 * The relayer against two real devnet chains (8453 → 10): profitable deposits are filled exactly once;
 * unprofitable, exclusive, disabled-route and underfunded ones are skipped and picked up when the
 * condition changes; a relay filled by someone else is never sent; a stuck fill is replaced with the same
 * nonce; a restart with a fill pending in the pool sends nothing new; a failed step is reconciled.
 */
import { loadArtifact, manifestToken } from "@platform/chains";
import { type DevnetFixture, useDevnet } from "@platform/chains/testing";
import { createLogger, type Database, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase } from "@platform/kernel/testing";
import { encodeFunctionData, erc20Abi, type Hex, maxUint256, parseUnits } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addressToBytes32 } from "../domain/relayHash.ts";
import { crosschainService } from "../index.ts";
import {
  advanceTime,
  depositAndIndex,
  filledRelayLogs,
  fillStatusOf,
  fixtureChains,
  intentOf,
  type MadeDeposit,
  multicallInstructions,
  rpc,
  speedUpAndIndex,
  spokeAbi,
  tokenBalance,
  waitFor,
} from "../testing/index.ts";
import { type Relayer, type StartRelayerParameters, startRelayer } from "./index.ts";

const A = 8453;
const B = 10;
const devnet = useDevnet({ chainIds: [A, B] });
const logger = createLogger({ level: process.env.RELAYER_TEST_LOG ?? "silent" });
let db: Database;
let drop: () => Promise<void>;
let relayer: Relayer | undefined;

beforeAll(async () => {
  const t = await createTestDatabase();
  db = t.db;
  drop = t.drop;
  await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
});

// Runs before the fixture's evm_revert (hooks run in reverse order).
afterEach(async () => {
  await relayer?.stop();
  relayer = undefined;
  await db.exec(
    "TRUNCATE crosschain.deposits, crosschain.fills, crosschain.relayer_fills, crosschain.speedups, platform.leases",
  );
});

afterAll(async () => {
  await drop?.();
});

function parameters(over: Partial<StartRelayerParameters> = {}): StartRelayerParameters {
  const f = devnet();
  return {
    db,
    chains: fixtureChains(f),
    privateKey: f.accounts.relayer.privateKey,
    logger,
    pollMs: 100,
    marginBps: 10,
    isRouteEnabled: () => true,
    destinationChainIds: [B],
    ...over,
  };
}

/** Starts the relayer of this test (stopped after it). */
function start(over: Partial<StartRelayerParameters> = {}): Relayer {
  relayer = startRelayer(parameters(over));
  return relayer;
}

const confirmed = (d: MadeDeposit) => async () => (await intentOf(db, d))?.state === "confirmed";
const usdc = (v: string) => parseUnits(v, 6);
/** A USDC deposit A → B of `amount`, 0.1 USDC left for the relayer, stored as the indexer would. */
const depositUsdc = (f: DevnetFixture, amount: string) =>
  depositAndIndex(f, db, {
    origin: A,
    destination: B,
    inputAmount: usdc(amount),
    outputAmount: usdc(amount) - usdc("0.1"),
  });

/** Runs `body` while chain B mines only on `evm_mine` (automine is restored after). */
async function withoutAutomine(f: DevnetFixture, body: () => Promise<void>) {
  await rpc(f, B, "evm_setAutomine", [false]);
  try {
    await body();
  } finally {
    await rpc(f, B, "evm_setAutomine", [true]);
  }
}

async function expectFilledOnceByRelayer(f: DevnetFixture, d: MadeDeposit) {
  expect(await fillStatusOf(f, B, d.relayHash)).toBe(2);
  const logs = await filledRelayLogs(f, d);
  expect(logs).toHaveLength(1);
  expect(logs[0]?.args.relayer).toBe(addressToBytes32(f.accounts.relayer.address));
  expect(logs[0]?.args.repaymentChainId).toBe(BigInt(B));
  const intent = await intentOf(db, d);
  expect(intent?.state).toBe("confirmed");
  expect(intent?.tx_hash).toBe(logs[0]?.transactionHash);
}

/** The relayer approves the SpokePool itself, but a test that stops mining needs it done beforehand. */
async function preApprove(f: DevnetFixture, symbol: string) {
  const wallet = f.walletClient(B, f.accounts.relayer);
  await f.publicClient(B).waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: manifestToken(f.chain(B), symbol).address,
      abi: erc20Abi,
      functionName: "approve",
      args: [f.chain(B).contracts.spokePool, maxUint256],
    }),
  });
}

/** A competitor (demo user 2) fills the relay itself. */
async function fillAsAnotherRelayer(f: DevnetFixture, d: MadeDeposit) {
  const other = f.accounts.users[2]!;
  const wallet = f.walletClient(B, other);
  const client = f.publicClient(B);
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: manifestToken(f.chain(B), "USDC").address,
      abi: erc20Abi,
      functionName: "approve",
      args: [f.chain(B).contracts.spokePool, maxUint256],
    }),
  });
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: f.chain(B).contracts.spokePool,
      abi: spokeAbi,
      functionName: "fillRelay",
      args: [d.relayData, BigInt(B), addressToBytes32(other.address)],
    }),
  });
}

describe("relayer", () => {
  it("fills profitable deposits exactly once: the recipient gets outputAmount, the intent is confirmed", async () => {
    const f = devnet();
    const recipient = f.accounts.users[1]!.address;
    const usdcBefore = await tokenBalance(f, B, "USDC", recipient);
    const daiBefore = await tokenBalance(f, B, "DAI", recipient);
    const d1 = await depositAndIndex(f, db, {
      origin: A,
      destination: B,
      inputAmount: usdc("100"),
      outputAmount: usdc("99.8"),
      recipient,
    });
    const d2 = await depositAndIndex(f, db, {
      origin: A,
      destination: B,
      symbol: "DAI",
      inputAmount: parseUnits("50", 18),
      outputAmount: parseUnits("49.9", 18),
      recipient,
    });
    const r = start();
    await waitFor("both fills confirmed", async () => (await confirmed(d1)()) && (await confirmed(d2)()));
    expect(await tokenBalance(f, B, "USDC", recipient)).toBe(usdcBefore + usdc("99.8"));
    expect(await tokenBalance(f, B, "DAI", recipient)).toBe(daiBefore + parseUnits("49.9", 18));
    await expectFilledOnceByRelayer(f, d1);
    await expectFilledOnceByRelayer(f, d2);
    expect((await intentOf(db, d1))?.attempts).toBe(1);
    expect(r.status).toMatchObject({ sent: 2, confirmed: 2, failed: 0, replaced: 0 });
    expect(r.status.chains[0]).toMatchObject({ chainId: B, state: "running", inFlight: 0 });
  });

  it("skips unprofitable, exclusive, disabled-route, underfunded, cross-token and expired deposits; fills the first four once that changes", async () => {
    const f = devnet();
    const admin = f.accounts.admin;
    const wbtcA = manifestToken(f.chain(A), "WBTC").address;
    const wbtcB = manifestToken(f.chain(B), "WBTC").address;
    const daiA = manifestToken(f.chain(A), "DAI").address;
    const mint = async (chainId: number, token: `0x${string}`, to: `0x${string}`, amount: bigint) =>
      f.publicClient(chainId).waitForTransactionReceipt({
        hash: await f.walletClient(chainId, admin).writeContract({
          address: token,
          abi: loadArtifact("ExpandedERC20").abi,
          functionName: "mint",
          args: [to, amount],
        }),
      });
    const base = { origin: A, destination: B, inputAmount: usdc("10"), outputAmount: usdc("9.9") };
    const unprofitable = await depositAndIndex(f, db, base);
    const exclusive = await depositAndIndex(f, db, {
      ...base,
      exclusiveRelayer: f.accounts.users[2]!.address,
      exclusivityPeriod: 600,
    });
    const disabled = await depositAndIndex(f, db, {
      ...base,
      symbol: "DAI",
      inputAmount: parseUnits("10", 18),
      outputAmount: parseUnits("9.9", 18),
    });
    // The relayer holds 100 WBTC on B: a 150 WBTC deposit is more than it has.
    await mint(A, wbtcA, f.accounts.users[0]!.address, parseUnits("200", 8));
    const underfunded = await depositAndIndex(f, db, {
      ...base,
      symbol: "WBTC",
      inputAmount: parseUnits("150", 8),
      outputAmount: parseUnits("149.8", 8),
    });
    const crossToken = await depositAndIndex(f, db, {
      ...base,
      outputSymbol: "DAI",
      outputAmount: parseUnits("9", 18),
    });
    const expired = await depositAndIndex(f, db, { ...base, fillDeadlineOffset: 30 });
    await advanceTime(f, B, 60); // B's clock passes the 30 s deadline, not the 600 s exclusivity

    const costs = new Map<bigint, bigint>([[unprofitable.relayData.depositId, usdc("1")]]);
    let daiEnabled = false;
    const r = start({
      tuning: { batchSize: 2 }, // pages of 2: the skipped ones at the head must not starve the others
      estimateFillCost: async (d) => costs.get(d.depositId),
      isRouteEnabled: (route) => daiEnabled || route.inputToken !== daiA,
    });
    const reasons = [
      "unprofitable",
      "exclusive",
      "route-disabled",
      "insufficient-balance",
      "different-tokens",
    ] as const;
    await waitFor("every skip reason", () => reasons.every((x) => r.status.skips[x] === 1));
    const all = [unprofitable, exclusive, disabled, underfunded, crossToken, expired];
    for (const d of all) {
      expect(await fillStatusOf(f, B, d.relayHash)).toBe(0);
      expect(await intentOf(db, d)).toBeUndefined();
    }
    expect(r.status.sent).toBe(0);

    // The conditions change: gas got cheap, the route is enabled, exclusivity passes, the relayer is funded.
    costs.clear();
    daiEnabled = true;
    await advanceTime(f, B, 600);
    await mint(B, wbtcB, f.accounts.relayer.address, parseUnits("100", 8));
    r.wake();
    const fillable = [unprofitable, exclusive, disabled, underfunded];
    await waitFor("the four fills confirmed", async () => {
      for (const d of fillable) if (!(await confirmed(d)())) return false;
      return true;
    });
    for (const d of fillable) await expectFilledOnceByRelayer(f, d);
    for (const d of [crossToken, expired]) {
      expect(await fillStatusOf(f, B, d.relayHash)).toBe(0);
      expect(await intentOf(db, d)).toBeUndefined();
    }
    expect(r.status.sent).toBe(4);
  });

  it("prices a message fill by its simulated gas: a fee that covers a plain fill but not the message's calls is skipped", async () => {
    const f = devnet();
    const handler = f.chain(B).contracts.multicallHandler as `0x${string}`;
    const recipient = f.accounts.users[2]!.address;
    // One unit of cost per gas unit; without a simulated gas (a plain fill's check) the cost is 0.
    const estimateFillCost = async (_d: unknown, gasUnits?: bigint) => gasUnits ?? 0n;
    const fee = 60_000n; // more than a plain fill's ~50k gas, less than the message fill's
    const usdcB = manifestToken(f.chain(B), "USDC").address;
    const calls = Array.from({ length: 8 }, (_, i) => ({
      target: usdcB,
      // Fresh allowances: a storage write each.
      callData: encodeFunctionData({
        abi: erc20Abi,
        functionName: "approve",
        args: [`0x${(i + 1).toString(16).padStart(40, "0")}`, 1n],
      }),
      value: 0n,
    }));
    const withMessage = await depositAndIndex(f, db, {
      origin: A,
      destination: B,
      inputAmount: usdc("10"),
      outputAmount: usdc("10") - fee,
      recipient: handler,
      message: multicallInstructions(recipient, calls),
    });
    const plain = await depositAndIndex(f, db, {
      origin: A,
      destination: B,
      inputAmount: usdc("10"),
      outputAmount: usdc("10") - fee,
      recipient,
    });
    const r = start({ marginBps: 0, estimateFillCost });
    await waitFor("the plain deposit filled", confirmed(plain));
    await waitFor("the message deposit skipped as unprofitable", () => (r.status.skips.unprofitable ?? 0) > 0);
    expect(await intentOf(db, withMessage)).toBeUndefined();
    expect(await fillStatusOf(f, B, withMessage.relayHash)).toBe(0);
  });

  it("fills a sped-up deposit with the depositor's signed terms (fillRelayWithUpdatedDeposit)", async () => {
    const f = devnet();
    const original = f.accounts.users[1]!.address;
    const updated = f.accounts.users[2]!.address;
    const before = await tokenBalance(f, B, "USDC", updated);
    // Output = input: nothing left for the relayer, so it is skipped until the depositor lowers the output.
    const d = await depositAndIndex(f, db, {
      origin: A,
      destination: B,
      inputAmount: usdc("100"),
      outputAmount: usdc("100"),
      recipient: original,
    });
    const r = start();
    await waitFor("skipped as unprofitable", async () => (r.status.skips.unprofitable ?? 0) > 0);
    expect(await intentOf(db, d)).toBeUndefined();
    await speedUpAndIndex(f, db, d, { updatedOutputAmount: usdc("99.5"), updatedRecipient: updated });
    await waitFor("fill confirmed", confirmed(d));
    expect(await tokenBalance(f, B, "USDC", updated)).toBe(before + usdc("99.5"));
    const logs = (await filledRelayLogs(f, d)) as unknown as {
      args: { relayExecutionInfo: { updatedOutputAmount: bigint; updatedRecipient: Hex } };
    }[];
    expect(logs).toHaveLength(1);
    expect(logs[0]?.args.relayExecutionInfo).toMatchObject({
      updatedOutputAmount: usdc("99.5"),
      updatedRecipient: addressToBytes32(updated),
    });
  });

  it("with two instances on one key, one fills and the other stands by, then takes over when the first stops", async () => {
    const f = devnet();
    // A lease long enough that a slow first poll (approval included) never lets it lapse; stop() releases it.
    const first = start({ tuning: { leaseTtlSec: 10 } });
    const second = startRelayer(parameters({ tuning: { leaseTtlSec: 10 } }));
    try {
      await waitFor(
        "one running, one standing by",
        async () =>
          [first, second]
            .map((r) => r.status.chains[0]?.state)
            .sort()
            .join() === "running,standby",
      );
      const [holder, standby] = first.status.chains[0]?.state === "running" ? [first, second] : [second, first];
      // The kernel lease of the key on chain B names the holding process (host:pid:random).
      const held = await db.query<{ name: string; holder: string }>(
        `SELECT name, holder FROM platform.leases
          WHERE name LIKE 'crosschain.relayer:%' AND holder IS NOT NULL AND expires_at > clock_timestamp()`,
      );
      expect(held).toEqual([
        {
          name: `crosschain.relayer:${B}:${f.accounts.relayer.address.toLowerCase()}`,
          holder: expect.stringMatching(/^.+:\d+:[0-9a-f]{8}$/),
        },
      ]);
      const deposit = () => depositUsdc(f, "10");
      const d1 = await deposit();
      await waitFor("first fill confirmed", confirmed(d1));
      expect(holder.status.sent).toBe(1);
      expect(standby.status.sent).toBe(0);
      // The holder stops (and releases its lease): the standby instance takes over.
      await holder.stop();
      const d2 = await deposit();
      await waitFor("second fill confirmed", confirmed(d2));
      expect(standby.status.sent).toBe(1);
      expect(standby.status.chains[0]?.state).toBe("running");
      await expectFilledOnceByRelayer(f, d1);
      await expectFilledOnceByRelayer(f, d2);
    } finally {
      await second.stop();
    }
  });

  it("never sends a fill for a relay another relayer filled (checks fillStatuses first)", async () => {
    const f = devnet();
    const d = await depositUsdc(f, "5");
    await fillAsAnotherRelayer(f, d);
    const client = f.publicClient(B);
    const nonceBefore = await client.getTransactionCount({ address: f.accounts.relayer.address });
    const r = start();
    await waitFor("filled-elsewhere skip", () => r.status.skips["filled-elsewhere"] === 1);
    expect(await client.getTransactionCount({ address: f.accounts.relayer.address })).toBe(nonceBefore);
    expect(await intentOf(db, d)).toBeUndefined();
    expect(await filledRelayLogs(f, d)).toHaveLength(1);
  });

  it("replaces a stuck fill with the same nonce and higher fees; only one is ever mined", async () => {
    const f = devnet();
    await preApprove(f, "USDC");
    const d = await depositUsdc(f, "5");
    await withoutAutomine(f, async () => {
      const r = start({ tuning: { stuckAfterMs: 300 } });
      const first = await waitFor("intent sent", async () => {
        const i = await intentOf(db, d);
        return i?.state === "sent" ? i : undefined;
      });
      await waitFor("a replacement", () => r.status.replaced >= 1);
      const firstTx = await f
        .publicClient(B)
        .getTransaction({ hash: first.tx_hash as Hex })
        .catch(() => undefined);
      expect(firstTx).toBeUndefined(); // the pool dropped it for the replacement
      await rpc(f, B, "evm_mine");
      await waitFor("confirmed", confirmed(d));
      await expectFilledOnceByRelayer(f, d);
      const intent = await intentOf(db, d);
      expect(intent?.tx_hash).not.toBe(first.tx_hash);
      expect(intent?.nonce).toBe(first.nonce);
      const mined = await f.publicClient(B).getTransaction({ hash: intent?.tx_hash as Hex });
      expect(mined.nonce).toBe(Number(first.nonce));
      expect(r.status.sent).toBe(1);
    });
  });

  it("after a restart, a fill still pending in the pool is awaited, not sent again", async () => {
    const f = devnet();
    await preApprove(f, "USDC");
    const d = await depositUsdc(f, "5");
    const client = f.publicClient(B);
    const me = f.accounts.relayer.address;
    await withoutAutomine(f, async () => {
      const first = start();
      await waitFor("intent sent", async () => (await intentOf(db, d))?.state === "sent");
      await first.stop();
      const second = start();
      const polls = async (n: number) => {
        const since = second.status.chains[0]?.lastPollAt ?? 0;
        for (let i = 0; i < n; i++) {
          const at = second.status.chains[0]?.lastPollAt ?? 0;
          await waitFor("a poll", () => (second.status.chains[0]?.lastPollAt ?? 0) > Math.max(at, since));
        }
      };
      await polls(3);
      expect(second.status.sent).toBe(0);
      const pending = await client.getTransactionCount({ address: me, blockTag: "pending" });
      expect(pending - (await client.getTransactionCount({ address: me }))).toBe(1);
      await rpc(f, B, "evm_mine");
      await waitFor("confirmed", confirmed(d));
      await expectFilledOnceByRelayer(f, d);
      expect(second.status).toMatchObject({ sent: 0, confirmed: 1 });
    });
  });

  it("reconciles a fill whose step failed after the intent was written (re-sent with the same nonce)", async () => {
    const f = devnet();
    const d = await depositUsdc(f, "5");
    let failures = 0;
    const r = start({
      hooks: {
        onStep(step) {
          if (step === "intent-written" && failures++ === 0) throw new Error("injected failure before the broadcast");
        },
      },
    });
    await waitFor("confirmed", confirmed(d));
    await expectFilledOnceByRelayer(f, d);
    expect((await intentOf(db, d))?.attempts).toBe(1);
    expect(r.status.sent).toBe(1);
    expect(failures).toBe(2);
  });

  it("drops a never-broadcast intent whose relay another relayer filled meanwhile, and reuses its nonce", async () => {
    const f = devnet();
    const d = await depositUsdc(f, "5");
    let reached!: (nonce: number) => void;
    const atIntent = new Promise<number>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    start({
      hooks: {
        async onStep(step, info) {
          if (step !== "intent-written" || !first) return;
          first = false;
          reached(info.nonce);
          await gate;
          throw new Error("injected: the broadcast never happened");
        },
      },
    });
    const nonce = await atIntent;
    expect((await intentOf(db, d))?.state).toBe("sending");
    await fillAsAnotherRelayer(f, d);
    release();
    await waitFor("intent dropped", async () => (await intentOf(db, d))?.state === "skipped");
    expect((await intentOf(db, d))?.last_error).toMatch(/^filled-elsewhere/);
    expect(await filledRelayLogs(f, d)).toHaveLength(1);
    // No gap: the next fill uses the nonce the dropped intent held.
    const d2 = await depositUsdc(f, "6");
    await waitFor("next fill confirmed", confirmed(d2));
    await expectFilledOnceByRelayer(f, d2);
    const tx = await f.publicClient(B).getTransaction({ hash: (await intentOf(db, d2))?.tx_hash as Hex });
    expect(tx.nonce).toBe(nonce);
  });
});
