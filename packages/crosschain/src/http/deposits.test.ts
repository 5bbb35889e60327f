/**
 * The SpokePool indexer and the deposit endpoints on a real two-chain devnet: deposits and fills made
 * with viem show up in /deposit/status (every lookup) and /deposits; a reorg on the destination
 * corrects a status; an expired deposit says so; with the RPC down, indexed data is still served.
 */
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { formatUnits, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spokeChains } from "../deployments.ts";
import { type Crosschain, crosschainService } from "../index.ts";
import { startSpokePoolIndexers } from "../indexer/spokePoolIndexer.ts";
import {
  contextChains,
  type DepositOptions,
  fillDeposit,
  type MadeDeposit,
  makeDeposit,
  quotesWarm,
} from "../testing/spokePoolActions.ts";

const A = 8453;
const B = 10;
let f: DevnetFixture;
let s: TestService<Crosschain>;
let indexers: ReturnType<typeof startSpokePoolIndexers>;

const api = async (path: string, key: string | null = s.apiKey) => {
  const res = await fetch(`${s.url}/api${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: await res.json() };
};

const statusOf = (d: MadeDeposit) => api(`/deposit/status?originChainId=${A}&depositId=${d.depositId}`);
type Reply = Awaited<ReturnType<typeof statusOf>>;

/** The deposit's status reply once `check` holds (the indexer follows the chains every 50 ms here); throws if never. */
const statusWhen = (d: MadeDeposit, check: (r: Reply) => boolean, timeout = 10_000) =>
  vi.waitFor(
    async () => {
      const r = await statusOf(d);
      if (!check(r)) throw new Error(`deposit ${d.depositId}: ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    },
    { timeout, interval: 25 },
  );

/** A deposit A → B made with viem, once the indexer stored it. */
async function indexedDeposit(o: Omit<DepositOptions, "origin" | "destination">): Promise<MadeDeposit> {
  const d = await makeDeposit(f, { origin: A, destination: B, ...o });
  await statusWhen(d, (r) => r.status === 200);
  return d;
}

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  const chains = contextChains(f);
  s = await startTestService(crosschainService, { chains, config: { crosschainPollMs: 50 } });
  // The fill-cost pass prices fills from the service's chain-state cache, as `platform start` wires it.
  await quotesWarm(s.instance.quotes);
  indexers = startSpokePoolIndexers({
    ...s.context,
    chains: spokeChains(chains),
    pricesOf: (chainId) => s.instance.quotes.cache.snapshot().chains.get(chainId)?.prices,
  });
});

afterAll(async () => {
  await indexers?.stop();
  await s?.close();
  await f?.stop();
});

describe("deposit lifecycle", () => {
  let deposit: MadeDeposit;
  let fillTx: string;

  it("a deposit becomes visible as pending, by all three lookups", async () => {
    deposit = await indexedDeposit({ inputAmount: parseUnits("100", 6), outputAmount: parseUnits("99.5", 6) });
    const { status, body } = await statusOf(deposit);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: "pending",
      originChainId: A,
      depositId: deposit.depositId.toString(),
      depositTxHash: deposit.txHash,
      depositTxnRef: deposit.txHash,
      fillTx: null,
      fillTxnRef: null,
      destinationChainId: B,
      depositRefundTxHash: null,
      depositRefundTxnRef: null,
      actionsSucceeded: null,
      pagination: { currentIndex: 0, maxIndex: 0 },
      id: expect.any(String),
    });
    const byTx = await api(`/deposit/status?depositTxnRef=${deposit.txHash}`);
    expect(byTx.body).toMatchObject({
      depositId: deposit.depositId.toString(),
      pagination: { currentIndex: 0, maxIndex: 0 },
    });
    const alias = await api(`/deposit/status?depositTxHash=${deposit.txHash}`);
    expect(alias.body.depositId).toBe(deposit.depositId.toString());
    const user = f.accounts.users[0]?.address as string;
    const byAddress = await api(`/deposit/status?depositAddress=${user}&index=0`);
    expect(byAddress.body).toMatchObject({ depositId: deposit.depositId.toString(), pagination: { currentIndex: 0 } });
    // The transaction reference wins over the other parameters, as at the anchor.
    const mixed = await api(`/deposit/status?depositTxnRef=${deposit.txHash}&originChainId=${B}`);
    expect(mixed.body).toMatchObject({ status: "pending", depositId: deposit.depositId.toString() });
    // relayDataHash: the relayHash /deposits shows.
    const [listed] = (await api("/deposits")).body as { relayHash: string; id: number }[];
    expect(listed?.id).toEqual(expect.any(Number));
    const byRelayHash = await api(`/deposit/status?relayDataHash=${listed?.relayHash}`);
    expect(byRelayHash.body).toMatchObject({ depositId: deposit.depositId.toString(), originChainId: A });
    const both = `/deposit/status?relayDataHash=${listed?.relayHash}&originChainId=${A}`;
    expect((await api(`${both}&depositId=${deposit.depositId}`)).status).toBe(200);
    expect((await api(`${both}&depositId=${deposit.depositId + 1n}`)).status).toBe(404);
    // One deposit matches: index 1 is out of range, in the anchor's words.
    const outOfRange = await api(`/deposit/status?originChainId=${A}&depositId=${deposit.depositId}&index=1`);
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body).toMatchObject({
      code: "INVALID_PARAM",
      param: "index",
      message: "Index 1 out of range. Index must be between 0 and 0",
    });
  });

  it("the fill on the other chain makes it filled, with the fill transaction", async () => {
    fillTx = await fillDeposit(f, deposit);
    const { body } = await statusWhen(deposit, (r) => r.body.status === "filled");
    expect(body).toMatchObject({ status: "filled", fillTx, fillTxnRef: fillTx, actionsSucceeded: null });
  });

  it("lists deposits with filters, newest first", async () => {
    const second = await indexedDeposit({
      inputAmount: parseUnits("5", 6),
      outputAmount: parseUnits("4.9", 6),
      user: 1,
    });
    const all = await api("/deposits");
    expect(all.status).toBe(200);
    expect(all.body.map((d: { depositId: string }) => d.depositId)).toEqual([
      second.depositId.toString(),
      deposit.depositId.toString(),
    ]);
    expect(all.body[1]).toMatchObject({
      originChainId: A,
      destinationChainId: B,
      depositor: String(f.accounts.users[0]?.address).toLowerCase(),
      inputAmount: "100000000",
      outputAmount: "99500000",
      status: "filled",
      fillTx,
      depositTxHash: deposit.txHash,
    });
    const user2 = f.accounts.users[1]?.address as string;
    expect((await api(`/deposits?depositor=${user2}`)).body).toHaveLength(1);
    expect((await api(`/deposits?address=${user2}`)).body).toHaveLength(1);
    expect((await api("/deposits?status=unfilled")).body.map((d: { depositId: string }) => d.depositId)).toEqual([
      second.depositId.toString(),
    ]);
    expect((await api("/deposits?status=filled")).body).toHaveLength(1);
    expect((await api(`/deposits?originChainId=${B}`)).body).toHaveLength(0);
    expect((await api("/deposits?limit=1&skip=1")).body.map((d: { depositId: string }) => d.depositId)).toEqual([
      deposit.depositId.toString(),
    ]);
    // `address` takes the place of depositor/recipient, as at the anchor.
    const user1 = f.accounts.users[0]?.address as string;
    expect((await api(`/deposits?address=${user2}&depositor=${user1}`)).body).toHaveLength(1);
    // Block ranges (inclusive) on the deposit and on the fill; only SpokePool deposits are indexed.
    const first = all.body[1] as { depositBlockNumber: number; fillBlockNumber: number; swapToken: null };
    const ids = async (query: string) =>
      (await api(`/deposits?${query}`)).body.map((d: { depositId: string }) => d.depositId);
    expect(await ids(`startBlock=${first.depositBlockNumber}&endBlock=${first.depositBlockNumber}`)).toEqual([
      deposit.depositId.toString(),
    ]);
    expect(await ids(`startBlock=${first.depositBlockNumber + 1}`)).toEqual([second.depositId.toString()]);
    expect(await ids(`startFillBlock=${first.fillBlockNumber}&endFillBlock=${first.fillBlockNumber}`)).toEqual([
      deposit.depositId.toString(),
    ]);
    expect(await ids(`endFillBlock=${first.fillBlockNumber - 1}`)).toEqual([]);
    expect(await ids("depositType=across")).toHaveLength(2);
    expect(await ids("depositType=cctp")).toEqual([]);
    expect(first).toMatchObject({ swapToken: null, swapOutputToken: null, actionsTargetChainId: null });
  });

  it("a filled deposit carries its fill's gas fee (from the receipt) and USD prices; an unfilled one nulls", async () => {
    const costFields = [
      "bridgeFeeUsd",
      "inputPriceUsd",
      "outputPriceUsd",
      "fillGasFee",
      "fillGasFeeUsd",
      "fillGasTokenPriceUsd",
    ] as const;
    const filled = await vi.waitFor(
      async () => {
        const item = (await api(`/deposits?status=filled`)).body[0];
        if (item?.fillGasFee === null) throw new Error("fill costs not read yet");
        return item;
      },
      { timeout: 10_000, interval: 25 },
    );
    const receipt = await f.publicClient(B).getTransactionReceipt({ hash: fillTx as `0x${string}` });
    const gasFee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(gasFee).toBeGreaterThan(0n);
    // The prices the fee quote's USD amounts use: the destination's native coin from its pools, USDC pinned to 1.
    const nativeUsd = s.instance.quotes.cache.snapshot().chains.get(B)?.prices.nativeUsd as bigint;
    expect(filled).toMatchObject({
      fillGasFee: gasFee.toString(),
      fillGasTokenPriceUsd: formatUnits(nativeUsd, 18),
      fillGasFeeUsd: formatUnits((gasFee * nativeUsd) / 10n ** 18n, 18),
      inputPriceUsd: "1",
      outputPriceUsd: "1",
      // 100 USDC in, 99.5 USDC delivered.
      bridgeFeeUsd: "0.5",
    });
    expect(Number(filled.fillGasTokenPriceUsd)).toBeGreaterThan(100);
    // Recorded once: a later read shows the same record.
    expect((await api(`/deposits?status=filled`)).body[0]).toEqual({ ...filled });
    for (const unfilled of (await api("/deposits?status=unfilled")).body) {
      for (const field of costFields) expect(unfilled[field], field).toBeNull();
    }
  });

  it("a reorg on the destination that drops the fill makes the deposit pending again", async () => {
    const d = await indexedDeposit({ inputAmount: parseUnits("7", 6), outputAmount: parseUnits("6.9", 6) });
    const client = f.publicClient(B);
    const snapshot = await client.request({ method: "evm_snapshot" as never, params: [] as never });
    await fillDeposit(f, d);
    await statusWhen(d, (r) => r.body.status === "filled");
    await client.request({ method: "evm_revert" as never, params: [snapshot] as never });
    // The replacement branch: other blocks at the same heights and beyond.
    for (let i = 0; i < 3; i++) await client.request({ method: "evm_mine" as never, params: [] as never });
    const after = await statusWhen(d, (r) => r.body.status === "pending");
    expect(after.body).toMatchObject({ status: "pending", fillTx: null });
  });

  it("a deposit past its fill deadline is expired", async () => {
    const d = await makeDeposit(f, {
      origin: A,
      destination: B,
      inputAmount: parseUnits("1", 6),
      outputAmount: parseUnits("0.9", 6),
      fillDeadlineOffset: 1,
    });
    const r = await statusWhen(d, (x) => x.body.status === "expired", 5_000);
    expect(r.body.status).toBe("expired");
  });
});

describe("errors", () => {
  it("401 without or with a wrong key, in the error body", async () => {
    const missing = await api("/deposits", null);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({
      type: "ServiceApiError",
      code: "UNAUTHORIZED",
      status: 401,
      id: expect.any(String),
    });
    expect((await api("/deposits", "nope")).status).toBe(401);
  });

  it("404 DEPOSIT_NOT_FOUND and clear 400s", async () => {
    const missing = await api(`/deposit/status?originChainId=${A}&depositId=999999`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ type: "ServiceApiError", code: "DEPOSIT_NOT_FOUND", status: 404 });
    const cases: [string, string, string?][] = [
      ["/deposit/status", "MISSING_PARAM"],
      [`/deposit/status?depositId=1`, "MISSING_PARAM", "originChainId"],
      [`/deposit/status?originChainId=${A}`, "MISSING_PARAM", "depositId"],
      ["/deposit/status?originChainId=5&depositId=1", "INVALID_PARAM", "originChainId"],
      ["/deposit/status?originChainId=abc&depositId=1", "INVALID_PARAM", "originChainId"],
      [`/deposit/status?originChainId=${A}&depositId=-1`, "INVALID_PARAM", "depositId"],
      ["/deposit/status?depositTxnRef=0x1234", "INVALID_PARAM", "depositTxnRef"],
      ["/deposit/status?depositAddress=nope", "INVALID_PARAM", "depositAddress"],
      ["/deposit/status?depositAddress=0x0000000000000000000000000000000000000001&index=-1", "INVALID_PARAM", "index"],
      ["/deposits?limit=1001", "INVALID_PARAM", "limit"],
      ["/deposits?startBlock=-1", "INVALID_PARAM", "startBlock"],
      ["/deposits?depositType=lz", "INVALID_PARAM", "depositType"],
      ["/deposit/status?relayDataHash=0x12", "INVALID_PARAM", "relayDataHash"],
      ["/deposits?limit=0", "INVALID_PARAM", "limit"],
      ["/deposits?skip=-1", "INVALID_PARAM", "skip"],
      ["/deposits?status=pending", "INVALID_PARAM", "status"],
      ["/deposits?depositor=0x12", "INVALID_PARAM", "depositor"],
      ["/deposits?destinationChainId=2", "INVALID_PARAM", "destinationChainId"],
    ];
    for (const [path, code, param] of cases) {
      const r = await api(path);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatchObject({ type: "ServiceApiError", code, status: 400, id: expect.any(String) });
      if (param) expect(r.body.param, path).toBe(param);
    }
    const tx = await api(`/deposit/status?depositTxnRef=0x${"ab".repeat(32)}`);
    expect(tx.status).toBe(404);
    expect((await api(`/deposit/status?relayDataHash=0x${"ab".repeat(32)}`)).status).toBe(404);
    expect((await api("/deposits?limit=1001")).body.message).toBe("Limit must not exceed 1000");
  });

  it("serves indexed data while the RPC is down", async () => {
    const d = await indexedDeposit({ inputAmount: parseUnits("3", 6), outputAmount: parseUnits("2.9", 6) });
    await f.stop();
    const r = await statusOf(d);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("pending");
    expect((await api("/deposits")).status).toBe(200);
  });
});
