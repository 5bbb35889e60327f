/**
 * Settlement accounting after a randomised run (seed printed; SETTLEMENT_TEST_SEED replays the draws): on three
 * devnet chains (hub 1), ~200 deposits of USDC, DAI and WETH over random routes, amounts and users are filled
 * by the real relayer (stopped and restarted halfway, one route disabled until then), slow-filled on request,
 * left to expire, or left pending; the real dataworker settles until nothing is unbooked. Then, per token and
 * chain: every deposit is exactly one of filled / slow-filled / refunded / pending; the relayer is repaid
 * exactly what it is owed; no SpokePool keeps or lacks a wei; the HubPool's LP fees are the items' LP fees and
 * every running balance is back to zero; depositors and slow-fill recipients got exactly their amounts.
 */
import { manifestToken } from "@platform/chains";
import { byteaToHex, createLogger } from "@platform/kernel";
import { replayableRandom } from "@platform/kernel/testing";
import { type Address, erc20Abi, getAddress, keccak256, parseUnits, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Relayer, type Route, startRelayer } from "../relayer/index.ts";
import { advanceTime, fillStatusOf, fixtureChains, waitFor } from "../relayer/testSupport.ts";
import { createBundlesRepository } from "../store/bundlesRepository.ts";
import { type MadeDeposit, makeDeposit, spokeAbi } from "../testing/spokePoolActions.ts";
import { hubPoolAbi } from "./settlementChains.ts";
import { type SettlementHarness, startSettlementHarness } from "./testHarness.ts";

const HUB = 1;
const CHAINS = [HUB, 10, 8453];
const TOKENS = ["USDC", "DAI", "WETH"] as const;
type TokenSymbol = (typeof TOKENS)[number];
const DECIMALS: Record<TokenSymbol, number> = { USDC: 6, DAI: 18, WETH: 18 };
const DEPOSITS = 200;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

type Kind = "fast" | "slow" | "expire" | "pending";

interface Planned {
  kind: Kind;
  symbol: TokenSymbol;
  user: number;
  recipient: Address;
  d: MadeDeposit;
}

let h: SettlementHarness;
let relayer: Relayer | undefined;

beforeAll(async () => {
  h = await startSettlementHarness(CHAINS);
  h.startDataworker();
}, 120_000);

afterAll(async () => {
  await relayer?.stop();
  await h?.stop();
});

const key = (...parts: (string | number)[]) => parts.join(":");
const lower = (a: string) => a.toLowerCase();

describe("settlement after a random run", () => {
  it("books every deposit once and pays everyone exactly what is owed", async () => {
    const started = Date.now();
    const { f, db } = h;
    const random = replayableRandom("SETTLEMENT_TEST_SEED");
    console.info(`settlement.random: SETTLEMENT_TEST_SEED=${random.seed}`);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random.next() * xs.length)] as T;
    const addressOf = (label: string) => getAddress(`0x${keccak256(toHex(`${random.seed}:${label}`)).slice(26)}`);
    const tokenOf = (chainId: number, symbol: TokenSymbol) => manifestToken(f.chain(chainId), symbol).address;
    const balanceOf = async (chainId: number, symbol: TokenSymbol, who: Address) =>
      f.publicClient(chainId).readContract({
        address: tokenOf(chainId, symbol),
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [who],
      });
    const relayerAddress = f.accounts.relayer.address as Address;
    const users = [0, 1, 2].map((i) => f.accounts.users[i]?.address as Address);

    // Balances before the run.
    const before = new Map<string, bigint>();
    const spokeOf = (chainId: number) => f.chain(chainId).contracts.spokePool as Address;
    for (const c of CHAINS) {
      for (const s of TOKENS) {
        before.set(key("spoke", c, s), await balanceOf(c, s, spokeOf(c)));
        before.set(key("relayer", c, s), await balanceOf(c, s, relayerAddress));
        for (const [i, u] of users.entries()) before.set(key("user", i, c, s), await balanceOf(c, s, u));
      }
    }

    // The first relayer leaves one random route alone; the second (after the restart) fills everything.
    const disabled = { origin: pick(CHAINS), symbol: pick(TOKENS) };
    const disabledDestination = pick(CHAINS.filter((c) => c !== disabled.origin));
    const isDisabled = (r: Route) =>
      r.originChainId === disabled.origin &&
      r.destinationChainId === disabledDestination &&
      lower(r.inputToken) === lower(tokenOf(disabled.origin, disabled.symbol));
    const start = (isRouteEnabled: (r: Route) => boolean) =>
      startRelayer({
        db,
        chains: fixtureChains(f),
        privateKey: f.accounts.relayer.privateKey,
        logger,
        pollMs: 100,
        marginBps: 10,
        isRouteEnabled,
      });
    relayer = start((r) => !isDisabled(r));

    const planned: Planned[] = [];
    const stopAt = Math.floor(DEPOSITS * 0.45);
    const restartAt = Math.floor(DEPOSITS * 0.6);
    for (let i = 0; i < DEPOSITS; i++) {
      if (i === stopAt) {
        await relayer?.stop();
        relayer = undefined;
        // Deadlines of the short-lived deposits so far pass on every chain (clocks move together).
        for (const c of CHAINS) await advanceTime(f, c, 60);
      }
      if (i === restartAt) relayer = start(() => true);
      const r = random.next();
      const kind: Kind = r < 0.62 ? "fast" : r < 0.76 ? "slow" : r < 0.92 ? "expire" : "pending";
      const origin = pick(CHAINS);
      const destination = pick(CHAINS.filter((c) => c !== origin));
      const symbol = pick(TOKENS);
      const user = Math.floor(random.next() * 3);
      const unit = parseUnits("1", DECIMALS[symbol]);
      // USDC/DAI 1–500 units, WETH 0.01–0.5, in hundredths.
      const inputAmount = ((symbol === "WETH" ? 1n : 100n) * unit * BigInt(1 + Math.floor(random.next() * 500))) / 100n;
      const recipient = addressOf(`${kind}:${i}`);
      const d = await makeDeposit(f, {
        origin,
        destination,
        symbol,
        inputAmount,
        // The relayer fills only a profitable deposit (0.5% left for it); the others it never fills.
        outputAmount: kind === "fast" ? inputAmount - inputAmount / 200n : inputAmount,
        user,
        recipient,
        fillDeadlineOffset: kind === "expire" ? 20 + Math.floor(random.next() * 20) : 3600,
      });
      if (kind === "slow") {
        const requester = f.accounts.users[Math.floor(random.next() * 3)] as (typeof f.accounts.users)[number];
        const receipt = await f.publicClient(destination).waitForTransactionReceipt({
          hash: await f.walletClient(destination, requester).writeContract({
            address: spokeOf(destination),
            abi: spokeAbi,
            functionName: "requestSlowFill",
            args: [d.relayData],
          }),
        });
        expect(receipt.status).toBe("success");
      }
      planned.push({ kind, symbol, user, recipient, d });
    }
    // The last short deadlines pass too.
    for (const c of CHAINS) await advanceTime(f, c, 60);
    const depositsMadeAt = Date.now();

    // Settled: every deposit's items are booked in executed bundles, and no bundle is open.
    const expectedKinds: Record<Kind, string[]> = {
      fast: ["deposit", "fillRefund"],
      slow: ["deposit", "slowFill"],
      expire: ["deposit", "expiredRefund"],
      pending: ["deposit"],
    };
    const booked = async () => {
      const rows = await db.query<{ relay_hash: Buffer; kind: string }>(
        `SELECT i.relay_hash, i.kind FROM crosschain.bundle_items i
         JOIN crosschain.bundles b ON b.id = i.bundle_id AND b.status = 'executed'`,
      );
      const byHash = new Map<string, Set<string>>();
      for (const row of rows) {
        const hash = lower(byteaToHex(row.relay_hash));
        byHash.set(hash, (byHash.get(hash) ?? new Set()).add(row.kind));
      }
      return byHash;
    };
    let missing: string[] = [];
    await waitFor(
      "every deposit settled",
      async () => {
        const byHash = await booked();
        const [open] = await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM crosschain.bundles WHERE status IN ('built', 'proposed')",
        );
        const [slowPending] = await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM crosschain.bundle_slow_leaves WHERE exec_state = 'pending'",
        );
        missing = planned.flatMap((p, i) => {
          const has = byHash.get(lower(p.d.internalRelayHash));
          const lacking = expectedKinds[p.kind].filter((k) => !has?.has(k));
          return lacking.length
            ? [
                `#${i} ${p.kind} ${p.symbol} ${p.d.relayData.originChainId}→${p.d.destinationChainId} lacks ${lacking} (has ${[...(has ?? [])]})`,
              ]
            : [];
        });
        return Number(open?.n) === 0 && Number(slowPending?.n) === 0 && missing.length === 0;
      },
      150_000,
    ).catch((error) => {
      const status = h.dataworker()?.status();
      throw new Error(
        `${error.message}; dataworker ${JSON.stringify(status)}; ${missing.length} deposits unsettled:\n${missing.slice(0, 20).join("\n")}`,
      );
    });
    const settledAt = Date.now();

    // The ledger, read once.
    interface ItemRow {
      bundle_id: string;
      kind: string;
      relay_hash: Buffer;
      chain_id: string;
      l1_token: Buffer;
      l2_token: Buffer;
      payee: Buffer;
      amount: string;
      lp_fee: string;
    }
    const items = (
      await db.query<ItemRow>(
        `SELECT i.* FROM crosschain.bundle_items i
         JOIN crosschain.bundles b ON b.id = i.bundle_id AND b.status = 'executed'`,
      )
    ).map((r) => ({
      kind: r.kind,
      relayHash: lower(byteaToHex(r.relay_hash)),
      chainId: Number(r.chain_id),
      l1Token: lower(byteaToHex(r.l1_token)),
      l2Token: lower(byteaToHex(r.l2_token)),
      payee: lower(byteaToHex(r.payee)),
      amount: BigInt(r.amount),
      lpFee: BigInt(r.lp_fee),
    }));
    const itemsOf = (p: Planned, kind: string) =>
      items.filter((i) => i.kind === kind && i.relayHash === lower(p.d.internalRelayHash));
    const slowLeaves = await db.query<{ relay_hash: Buffer; exec_state: string }>(
      "SELECT relay_hash, exec_state FROM crosschain.bundle_slow_leaves",
    );
    const slowExecuted = new Set(
      slowLeaves.filter((l) => l.exec_state === "executed").map((l) => lower(byteaToHex(l.relay_hash))),
    );
    expect(slowLeaves.every((l) => l.exec_state === "executed")).toBe(true);
    expect(items.filter((i) => i.kind === "excessSlowFill")).toEqual([]);

    // 1. Every deposit is exactly one of fast-filled, slow-filled, refunded or pending (booked as a deposit only).
    for (const p of planned) {
      const fill = itemsOf(p, "fillRefund");
      const slow = itemsOf(p, "slowFill");
      const refund = itemsOf(p, "expiredRefund");
      expect(itemsOf(p, "deposit"), `deposit item of ${p.d.internalRelayHash}`).toHaveLength(1);
      const outcomes = [
        fill.length === 1 ? "fast" : undefined,
        slow.length === 1 && slowExecuted.has(lower(p.d.internalRelayHash)) ? "slow" : undefined,
        refund.length === 1 ? "expire" : undefined,
      ].filter(Boolean);
      expect(fill.length + slow.length + refund.length, `items of ${p.kind} ${p.d.internalRelayHash}`).toBe(
        outcomes.length,
      );
      expect(outcomes.length ? outcomes : ["pending"], `outcome of ${p.d.internalRelayHash}`).toEqual([p.kind]);
      const status = await fillStatusOf(f, p.d.destinationChainId, p.d.relayHash);
      expect(status, `fill status of ${p.kind} ${p.d.relayHash}`).toBe(p.kind === "fast" || p.kind === "slow" ? 2 : 0);
    }
    const counts = Object.fromEntries(
      (["fast", "slow", "expire", "pending"] as const).map((k) => [k, planned.filter((p) => p.kind === k).length]),
    ) as Record<Kind, number>;

    // 2. The relayer is repaid on each chain exactly what it is owed, input less a non-negative LP fee.
    for (const p of planned.filter((x) => x.kind === "fast")) {
      const [item] = itemsOf(p, "fillRefund");
      expect(item?.payee).toBe(lower(relayerAddress));
      expect(item?.chainId).toBe(p.d.destinationChainId);
      expect(item?.l2Token).toBe(lower(tokenOf(p.d.destinationChainId, p.symbol)));
      expect(item?.lpFee).toBeGreaterThanOrEqual(0n);
      expect((item?.amount ?? 0n) + (item?.lpFee ?? 0n)).toBe(p.d.relayData.inputAmount);
    }
    const fills = await db.query<{ relay_hash: Buffer; relayer: Buffer; destination_chain_id: string }>(
      "SELECT relay_hash, relayer, destination_chain_id FROM crosschain.fills",
    );
    expect(fills).toHaveLength(counts.fast + counts.slow);
    for (const c of CHAINS) {
      for (const s of TOKENS) {
        const fast = planned.filter((p) => p.kind === "fast" && p.d.destinationChainId === c && p.symbol === s);
        const repaid = fast.reduce((sum, p) => sum + (itemsOf(p, "fillRefund")[0]?.amount ?? 0n), 0n);
        const paidOut = fast.reduce((sum, p) => sum + p.d.relayData.outputAmount, 0n);
        const change = (await balanceOf(c, s, relayerAddress)) - (before.get(key("relayer", c, s)) ?? 0n);
        expect(change, `relayer ${s} on ${c}`).toBe(repaid - paidOut);
      }
    }

    // 3. No SpokePool keeps or lacks anything: each is back to its balance plus what is not booked (nothing).
    for (const c of CHAINS) {
      for (const s of TOKENS) {
        const unbooked = planned
          .filter(
            (p) => Number(p.d.relayData.originChainId) === c && p.symbol === s && itemsOf(p, "deposit").length === 0,
          )
          .reduce((sum, p) => sum + p.d.relayData.inputAmount, 0n);
        expect(await balanceOf(c, s, spokeOf(c)), `spoke ${s} on ${c}`).toBe(
          (before.get(key("spoke", c, s)) ?? 0n) + unbooked,
        );
      }
    }
    // The HubPool's LP fees are the items' LP fees; its reserves never went negative; balances are back to 0.
    const poolLeaves = await db.query<{ l1_tokens: Buffer[]; bundle_lp_fees: string[] }>(
      `SELECT l.l1_tokens, l.bundle_lp_fees::text[] AS bundle_lp_fees FROM crosschain.bundle_pool_leaves l
       JOIN crosschain.bundles b ON b.id = l.bundle_id AND b.status = 'executed' WHERE l.exec_tx IS NOT NULL`,
    );
    const [unexecutedLeaves] = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM crosschain.bundle_pool_leaves l
       JOIN crosschain.bundles b ON b.id = l.bundle_id AND b.status = 'executed' WHERE l.exec_tx IS NULL`,
    );
    expect(Number(unexecutedLeaves?.n)).toBe(0);
    for (const s of TOKENS) {
      const l1 = lower(tokenOf(HUB, s));
      let leafFees = 0n;
      for (const leaf of poolLeaves) {
        for (const [i, t] of leaf.l1_tokens.entries()) {
          if (lower(byteaToHex(t)) === l1) leafFees += BigInt(leaf.bundle_lp_fees[i] ?? 0);
        }
      }
      const itemFees = items
        .filter((i) => (i.kind === "fillRefund" || i.kind === "slowFill") && i.l1Token === l1)
        .reduce((sum, i) => sum + i.lpFee, 0n);
      expect(leafFees, `bundle LP fees of ${s}`).toBe(itemFees);
      const pool = (await f.publicClient(HUB).readContract({
        address: f.chain(HUB).contracts.hubPool as Address,
        abi: hubPoolAbi,
        functionName: "pooledTokens",
        args: [tokenOf(HUB, s)],
      })) as readonly [Address, boolean, number, bigint, bigint, bigint];
      expect(pool[4], `liquid reserves of ${s}`).toBeGreaterThanOrEqual(0n);
    }
    const [negative] = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM crosschain.hub_pool_snapshots WHERE liquid_reserves < 0",
    );
    expect(Number(negative?.n)).toBe(0);
    const running = await createBundlesRepository(db).runningBalances();
    expect(running.length).toBeGreaterThan(0);
    expect(running.filter((b) => b.amount !== 0n)).toEqual([]);

    // 4. Depositors got exactly their expired inputs back on the origin chain; slow-fill recipients their amount.
    for (const p of planned.filter((x) => x.kind === "expire")) {
      const [item] = itemsOf(p, "expiredRefund");
      expect(item?.payee).toBe(lower(users[p.user] as Address));
      expect(item?.chainId).toBe(Number(p.d.relayData.originChainId));
      expect(item?.amount).toBe(p.d.relayData.inputAmount);
      expect(item?.lpFee).toBe(0n);
    }
    for (const [u, address] of users.entries()) {
      for (const c of CHAINS) {
        for (const s of TOKENS) {
          const mine = planned.filter(
            (p) => p.user === u && Number(p.d.relayData.originChainId) === c && p.symbol === s,
          );
          const spent = mine.reduce((sum, p) => sum + p.d.relayData.inputAmount, 0n);
          const refunded = mine
            .filter((p) => p.kind === "expire")
            .reduce((sum, p) => sum + p.d.relayData.inputAmount, 0n);
          const change = (await balanceOf(c, s, address)) - (before.get(key("user", u, c, s)) ?? 0n);
          expect(change, `user ${u} ${s} on ${c}`).toBe(refunded - spent);
        }
      }
    }
    for (const p of planned.filter((x) => x.kind === "slow")) {
      const [item] = itemsOf(p, "slowFill");
      const c = p.d.destinationChainId;
      expect(item?.chainId).toBe(c);
      expect((item?.amount ?? 0n) + (item?.lpFee ?? 0n)).toBe(p.d.relayData.inputAmount);
      // A WETH slow fill is paid unwrapped (ETH): the recipients are fresh addresses that never send.
      const eth = p.symbol === "WETH" ? await f.publicClient(c).getBalance({ address: p.recipient }) : 0n;
      expect((await balanceOf(c, p.symbol, p.recipient)) + eth, `slow fill to ${p.recipient}`).toBe(item?.amount);
    }

    const [bundles] = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM crosschain.bundles WHERE status = 'executed'",
    );
    console.info(
      `settlement.random: ${planned.length} deposits ${JSON.stringify(counts)}, ${bundles?.n} bundles; ` +
        `deposits ${((depositsMadeAt - started) / 1000).toFixed(1)} s, settled after ` +
        `${((settledAt - depositsMadeAt) / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});
