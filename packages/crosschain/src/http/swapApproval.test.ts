/**
 * `/swap/approval` and `/swap/sources` over HTTP on a two-chain devnet, each route kind executed for real: the
 * quote's approvals and transaction are sent by a devnet user, our relayer fills the deposit (running the
 * destination message), and the recipient's balances are checked against the quote.
 */
import { writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestToken } from "@platform/chains";
import type { BackgroundJob } from "@platform/kernel";
import {
  type Address,
  erc20Abi,
  formatUnits,
  type Hex,
  maxUint256,
  parseEventLogs,
  parseUnits,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniswapV2RouterAbi } from "../domain/swap/swapCalldata.ts";
import { type QuoteTestService, startQuoteTestService } from "../quotes/testing.ts";
import { waitFor } from "../relayer/testSupport.ts";
import { spokeAbi } from "../testing/spokePoolActions.ts";

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, checked by each test
type Json = any;

const A = 8453;
const B = 10;
let t: QuoteTestService;
let jobs: BackgroundJob;

beforeAll(async () => {
  // USDC and WETH are the bridgeable tokens (as on most real routes); USDT and DAI reach the bridge by swaps.
  const routesFile = join(tmpdir(), `swap-routes-${process.pid}.json`);
  const routes = [A, B].flatMap((from) =>
    ["USDC", "WETH"].map((originToken) => ({
      originChainId: from,
      destinationChainId: from === A ? B : A,
      originToken,
    })),
  );
  writeFileSync(routesFile, JSON.stringify({ routes }));
  t = await startQuoteTestService({ chainIds: [A, B], routesFile, config: { crosschainPollMs: 100 } });
  jobs = await t.service.instance.startJobs();
});

afterAll(async () => {
  await jobs?.stop();
  await t?.close();
});

const token = (chainId: number, symbol: string) => manifestToken(t.devnet.chain(chainId), symbol).address;
const user = (i: number) => t.devnet.accounts.users[i] as { address: Address; privateKey: Hex };
const balanceOf = (chainId: number, tokenAddress: Address, who: Address) =>
  tokenAddress === zeroAddress
    ? t.devnet.publicClient(chainId).getBalance({ address: who })
    : t.devnet
        .publicClient(chainId)
        .readContract({ address: tokenAddress, abi: erc20Abi, functionName: "balanceOf", args: [who] });

async function swapQuote(query: Record<string, string | number | boolean>, body?: unknown) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${t.service.url}/api/swap/approval?${qs}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${t.service.apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Sends the quote's approvals and transaction as `from`; returns the deposit id (undefined when it reverted). */
async function execute(quote: Json, from: { privateKey: Hex }) {
  const chainId = quote.swapTx.chainId as number;
  const wallet = t.devnet.walletClient(chainId, {
    ...from,
    address: privateKeyToAccount(from.privateKey).address,
  } as never);
  const client = t.devnet.publicClient(chainId);
  for (const approval of quote.approvalTxns ?? []) {
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: approval.to, data: approval.data }),
    });
  }
  const hash = await wallet.sendTransaction({
    to: quote.swapTx.to,
    data: quote.swapTx.data,
    value: BigInt(quote.swapTx.value),
    gas: quote.swapTx.simulationSuccess ? BigInt(quote.swapTx.gas) : 1_500_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") return { receipt, depositId: undefined };
  const [deposit] = parseEventLogs({
    abi: spokeAbi as never,
    logs: receipt.logs,
    eventName: "FundsDeposited" as never,
  });
  return { receipt, depositId: (deposit as unknown as { args: { depositId: bigint } }).args.depositId };
}

async function filledStatus(depositId: bigint) {
  return waitFor(
    "the fill",
    async () => {
      const { body } = await t.get("/deposit/status", { originChainId: A, depositId: String(depositId) });
      return body.status === "filled" ? body : undefined;
    },
    20_000,
  );
}

/** A trader sells `amountIn` along `path` on the chain's Uniswap V2 router, moving its pools before a quote runs. */
async function moveV2Pool(
  chainId: number,
  trader: { address: Address; privateKey: Hex },
  amountIn: bigint,
  path: Address[],
) {
  const wallet = t.devnet.walletClient(chainId, { ...trader } as never);
  const client = t.devnet.publicClient(chainId);
  const router = t.devnet.chain(chainId).contracts.uniswapV2Router02 as Address;
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: path[0] as Address,
      abi: erc20Abi,
      functionName: "approve",
      args: [router, maxUint256],
    }),
  });
  const now = Number((await client.getBlock()).timestamp);
  const moved = await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: router,
      abi: uniswapV2RouterAbi,
      functionName: "swapExactTokensForTokens",
      args: [amountIn, 0n, path, trader.address, BigInt(now + 600)],
      gas: 300_000n,
    }),
  });
  expect(moved.status).toBe("success");
}

const base = (over: Record<string, string | number | boolean>) => ({
  originChainId: A,
  destinationChainId: B,
  depositor: user(0).address,
  ...over,
});

describe("/swap/sources", () => {
  it("lists each chain's configured AMMs, sorted, and [] for a chain without (never a 500)", async () => {
    expect((await t.get("/swap/sources")).body).toEqual(["uniswap_v2", "uniswap_v3"]);
    expect((await t.get("/swap/sources", { chainId: A })).body).toEqual(["uniswap_v2", "uniswap_v3"]);
    expect((await t.get("/swap/sources", { chainId: 137 })).body).toEqual([]);
    const bad = await t.get("/swap/sources", { chainId: 5 });
    expect(bad).toMatchObject({ status: 400, body: { code: "INVALID_PARAM", param: "chainId" } });
  });
});

describe("/swap/chains and /swap/tokens", () => {
  it("/swap/chains lists the served chains with the anchor's fields", async () => {
    const res = await t.get("/swap/chains");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      [B, A].map((chainId) => ({
        chainId,
        name: chainId === A ? "Base" : "Optimism",
        publicRpcUrl: t.devnet.chain(chainId).rpcUrl,
        explorerUrl: "",
        logoUrl: "",
      })),
    );
    expect((await t.get("/swap/chains", {}, null)).status).toBe(401);
  });

  it("/swap/tokens lists the native coin and every token the router reaches, each priced as the fee quote prices it", async () => {
    const res = await t.get("/swap/tokens");
    expect(res.status).toBe(200);
    expect(res.body.map((x: Json) => `${x.chainId}:${x.symbol}`).sort()).toEqual(
      [A, B].flatMap((c) => ["ETH", "WETH", "USDC", "USDT", "DAI", "WBTC"].map((s) => `${c}:${s}`)).sort(),
    );
    const eth = res.body.find((x: Json) => x.chainId === A && x.symbol === "ETH");
    const weth = res.body.find((x: Json) => x.chainId === A && x.symbol === "WETH");
    expect(eth).toEqual({
      chainId: A,
      address: zeroAddress,
      name: "Ether",
      symbol: "ETH",
      decimals: 18,
      logoUrl: "",
      priceUsd: weth.priceUsd,
    });
    expect(Number(eth.priceUsd)).toBeGreaterThan(100);
    for (const symbol of ["USDC", "USDT", "DAI"]) {
      expect(res.body.find((x: Json) => x.chainId === B && x.symbol === symbol)).toMatchObject({
        address: token(B, symbol),
        priceUsd: "1",
      });
    }
    const wbtc = res.body.find((x: Json) => x.chainId === A && x.symbol === "WBTC");
    expect(wbtc).toMatchObject({ address: token(A, "WBTC"), name: "Wrapped BTC", decimals: 8 });
    expect(Number(wbtc.priceUsd)).toBeGreaterThan(Number(eth.priceUsd));
    // Every token listed on the origin swaps into the bridge: a quote from each answers.
    for (const listed of res.body.filter((x: Json) => x.chainId === A)) {
      const q = await swapQuote(
        base({
          // About 100 USD of each, at the listed price.
          amount: parseUnits((100 / Number(listed.priceUsd)).toFixed(6), listed.decimals).toString(),
          inputToken: listed.address,
          outputToken: token(B, "USDC"),
          skipOriginTxEstimation: true,
          skipChecks: true,
        }),
      );
      expect(q.status, `${listed.symbol}: ${JSON.stringify(q.body)}`).toBe(200);
    }
    const onlyB = await t.get("/swap/tokens", { chainId: B });
    expect(onlyB.body.every((x: Json) => x.chainId === B)).toBe(true);
    expect(onlyB.body).toHaveLength(6);
    expect((await t.get("/swap/tokens", { chainId: 137 })).body).toEqual([]);
    expect(await t.get("/swap/tokens", { chainId: "x" })).toMatchObject({
      status: 400,
      body: { code: "INVALID_PARAM" },
    });
  });
});

describe("/swap/approval route kinds, executed", () => {
  it("bridgeable → bridgeable: USDC to USDC, a SpokePool deposit; the recipient gets the quoted output", async () => {
    const recipient = user(2).address;
    const { status, body } = await swapQuote(
      base({
        amount: parseUnits("250", 6).toString(),
        inputToken: token(A, "USDC"),
        outputToken: token(B, "USDC"),
        recipient,
        integratorId: "0xbeef",
      }),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      crossSwapType: "bridgeableToBridgeable",
      amountType: "exactInput",
      inputAmount: "250000000",
    });
    expect(body.steps.originSwap).toBeUndefined();
    expect(body.swapTx.to.toLowerCase()).toBe(t.devnet.chain(A).contracts.spokePool.toLowerCase());
    expect(body.swapTx.data).toMatch(/1dc0debeef73c0de$/);
    expect(body.expectedOutputAmount).toBe(body.minOutputAmount);
    expect(BigInt(body.fees.total.amount)).toBeGreaterThan(0n);
    expect(body.fees.total.details.bridge.details.type).toBe("across");
    const before = await balanceOf(B, token(B, "USDC"), recipient);
    const { depositId } = await execute(body, user(0));
    await filledStatus(depositId as bigint);
    expect((await balanceOf(B, token(B, "USDC"), recipient)) - before).toBe(BigInt(body.expectedOutputAmount));
  });

  it.each(["uniswap_v2", "uniswap_v3"])(
    "any → bridgeable: WETH to USDC through swapAndBridge on %s, the output scaled by what the swap returned",
    async (source) => {
      const recipient = user(2).address;
      const { status, body } = await swapQuote(
        base({
          amount: parseUnits("0.5", 18).toString(),
          inputToken: token(A, "WETH"),
          outputToken: token(B, "USDC"),
          recipient,
          slippage: "0.01",
          includeSources: source,
        }),
      );
      expect(status).toBe(200);
      expect(body.crossSwapType).toBe("anyToBridgeable");
      expect(body.steps.originSwap).toMatchObject({
        swapProvider: { name: "uniswap", sources: [source] },
        slippage: 0.01,
      });
      expect(body.swapTx.to.toLowerCase()).toBe(t.devnet.chain(A).contracts.spokePoolPeriphery.toLowerCase());
      expect(body.checks.allowance.spender).toBe(body.swapTx.to);
      const before = await balanceOf(B, token(B, "USDC"), recipient);
      const { depositId } = await execute(body, user(0));
      await filledStatus(depositId as bigint);
      const received = (await balanceOf(B, token(B, "USDC"), recipient)) - before;
      expect(received).toBeGreaterThanOrEqual(BigInt(body.minOutputAmount));
      // Nobody traded in between: the swap returned what it was quoted (to the unit on V2; V3 rounds its
      // square-root price in the pool's favour, a few units at most), so the output is the expected one.
      expect(BigInt(body.expectedOutputAmount) - received).toBeLessThanOrEqual(source === "uniswap_v2" ? 0n : 10n);
      // /deposits shows the origin swap (from the swapAndBridge calldata) and, once the fill's costs are read,
      // its token's price and its cost: the WETH swapped − the USDC deposited, at the origin's prices.
      const record = await waitFor("the fill's costs", async () => {
        const [item] = (await t.get("/deposits", { originChainId: A, startBlock: 0 })).body.filter(
          (d: Json) => d.depositId === String(depositId),
        );
        return item?.swapFeeUsd ? item : undefined;
      });
      // The price recorded when the fill was read (pools move with every swap, so it is checked against the
      // cache's current one loosely, and the fee exactly from it).
      const wethUsd = parseUnits(record.swapTokenPriceUsd, 18);
      const nowUsd = t.quotes.cache.snapshot().chains.get(A)?.prices.usd.get(token(A, "WETH").toLowerCase()) as bigint;
      expect(wethUsd * 100n).toBeGreaterThan(nowUsd * 95n);
      expect(wethUsd * 100n).toBeLessThan(nowUsd * 105n);
      const swappedUsd = (parseUnits("0.5", 18) * wethUsd) / 10n ** 18n;
      expect(record).toMatchObject({
        swapToken: token(A, "WETH").toLowerCase(),
        swapTokenAmount: parseUnits("0.5", 18).toString(),
        swapTransactionHash: record.depositTxnRef,
        swapFeeUsd: formatUnits(swappedUsd - BigInt(record.inputAmount) * 10n ** 12n, 18),
        inputPriceUsd: "1",
      });
    },
  );

  it("bridgeable → any: USDC to DAI, swapped on the destination by the MulticallHandler", async () => {
    const recipient = user(2).address;
    const { status, body } = await swapQuote(
      base({
        amount: parseUnits("100", 6).toString(),
        inputToken: token(A, "USDC"),
        outputToken: token(B, "DAI"),
        recipient,
      }),
    );
    expect(status).toBe(200);
    expect(body.crossSwapType).toBe("bridgeableToAny");
    expect(body.steps.destinationSwap.tokenOut.symbol).toBe("DAI");
    expect(body.refundToken.chainId).toBe(B); // a destination swap refunds on the destination by default
    expect(body.quoteExpiryTimestamp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(30);
    const before = await balanceOf(B, token(B, "DAI"), recipient);
    const { depositId } = await execute(body, user(0));
    const status2 = await filledStatus(depositId as bigint);
    expect(status2.actionsSucceeded).toBe(true);
    const received = (await balanceOf(B, token(B, "DAI"), recipient)) - before;
    expect(received).toBeGreaterThanOrEqual(BigInt(body.minOutputAmount));
  });

  it("any → any with minOutput and an app fee: USDT in, at least the amount of DAI out", async () => {
    const recipient = user(2).address;
    const feeRecipient = "0x00000000000000000000000000000000000fee01" as Address;
    const amount = parseUnits("500", 18);
    const { status, body } = await swapQuote(
      base({
        tradeType: "minOutput",
        amount: amount.toString(),
        inputToken: token(A, "USDT"),
        outputToken: token(B, "DAI"),
        recipient,
        appFee: 0.01,
        appFeeRecipient: feeRecipient,
      }),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      crossSwapType: "anyToAny",
      amountType: "minOutput",
      minOutputAmount: amount.toString(),
    });
    expect(body.steps.originSwap.tokenOut.symbol).toBe("USDC");
    expect(BigInt(body.fees.total.details.app.amount)).toBeGreaterThan(0n);
    const before = await balanceOf(B, token(B, "DAI"), recipient);
    const { depositId } = await execute(body, user(1));
    expect((await filledStatus(depositId as bigint)).actionsSucceeded).toBe(true);
    expect((await balanceOf(B, token(B, "DAI"), recipient)) - before).toBeGreaterThanOrEqual(amount);
    expect(await balanceOf(B, token(B, "DAI"), feeRecipient)).toBe(BigInt(body.fees.total.details.app.amount));
  });

  it("any → bridgeable from the native coin: ETH in with the transaction's value, no approval", async () => {
    const recipient = user(2).address;
    const { status, body } = await swapQuote(
      base({
        amount: parseUnits("0.2", 18).toString(),
        inputToken: zeroAddress,
        outputToken: token(B, "USDC"),
        recipient,
        depositor: user(1).address,
      }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.inputToken, JSON.stringify(body)).toMatchObject({ address: zeroAddress, symbol: "ETH" });
    expect(body.approvalTxns).toBeUndefined();
    expect(body.swapTx.value).toBe(body.inputAmount);
    const before = await balanceOf(B, token(B, "USDC"), recipient);
    const { depositId } = await execute(body, user(1));
    await filledStatus(depositId as bigint);
    expect((await balanceOf(B, token(B, "USDC"), recipient)) - before).toBeGreaterThanOrEqual(
      BigInt(body.minOutputAmount),
    );
  });

  it("exactOutput: exactly the amount of DAI; the unspent bridged USDC goes to the refund address", async () => {
    const recipient = "0x00000000000000000000000000000000000e7001" as Address;
    const refundAddress = "0x00000000000000000000000000000000000e7002" as Address;
    const amount = parseUnits("75", 18);
    const { status, body } = await swapQuote(
      base({
        tradeType: "exactOutput",
        amount: amount.toString(),
        inputToken: token(A, "USDC"),
        outputToken: token(B, "DAI"),
        recipient,
        refundAddress,
      }),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ crossSwapType: "bridgeableToAny", expectedOutputAmount: amount.toString() });
    const { depositId } = await execute(body, user(0));
    await filledStatus(depositId as bigint);
    expect(await balanceOf(B, token(B, "DAI"), recipient)).toBe(amount);
    expect(await balanceOf(B, token(B, "USDC"), refundAddress)).toBeGreaterThan(0n);
  });

  it("exactOutput to the native coin: exactly the amount of ETH", async () => {
    const recipient = "0x00000000000000000000000000000000000e7003" as Address;
    const amount = parseUnits("0.05", 18);
    const { status, body } = await swapQuote(
      base({
        tradeType: "exactOutput",
        amount: amount.toString(),
        inputToken: token(A, "USDC"),
        outputToken: zeroAddress,
        recipient,
      }),
    );
    expect(status).toBe(200);
    expect(body.expectedOutputAmount).toBe(amount.toString());
    const { depositId } = await execute(body, user(0));
    await filledStatus(depositId as bigint);
    expect(await balanceOf(B, zeroAddress, recipient)).toBe(amount);
  });
});

describe("/swap/approval embedded actions (POST)", () => {
  it("runs a balance-populated action after the swap, and a failing action sends the funds to the fallback", async () => {
    const dai = token(B, "DAI");
    const vault = "0x00000000000000000000000000000000000ba017" as Address;
    const recipient = user(2).address;
    const transferAll = {
      target: dai,
      functionSignature: "function transfer(address to, uint256 amount)",
      // balanceSourceToken: null on a static argument, as the anchor's schema allows (nullable): null = absent.
      args: [
        { value: vault, populateDynamically: false, balanceSourceToken: null },
        { value: "0", populateDynamically: true, balanceSourceToken: dai },
      ],
      value: "0",
    };
    const ok = await swapQuote(
      base({ amount: parseUnits("50", 6).toString(), inputToken: token(A, "USDC"), outputToken: dai, recipient }),
      { actions: [transferAll] },
    );
    expect(ok.status).toBe(200);
    const { depositId } = await execute(ok.body, user(0));
    expect((await filledStatus(depositId as bigint)).actionsSucceeded).toBe(true);
    expect(await balanceOf(B, dai, vault)).toBeGreaterThanOrEqual(BigInt(ok.body.minOutputAmount));

    // An action that cannot succeed (more DAI than the swap gives): the handler's calls revert, the fill stands.
    const refundAddress = "0x00000000000000000000000000000000000fa11b" as Address;
    const failing = await swapQuote(
      base({
        amount: parseUnits("50", 6).toString(),
        inputToken: token(A, "USDC"),
        outputToken: dai,
        recipient,
        refundAddress,
      }),
      { actions: [{ ...transferAll, args: [{ value: vault }, { value: parseUnits("1000000", 18).toString() }] }] },
    );
    expect(failing.status).toBe(200);
    const second = await execute(failing.body, user(0));
    expect((await filledStatus(second.depositId as bigint)).actionsSucceeded).toBe(false);
    expect(await balanceOf(B, token(B, "USDC"), refundAddress)).toBe(BigInt(failing.body.steps.bridge.outputAmount));
  });

  it("refuses actions that do not encode (ABI_ENCODING_ERROR) and a GET with a body (INVALID_METHOD)", async () => {
    const q = base({ amount: "1000000", inputToken: token(A, "USDC"), outputToken: token(B, "USDC") });
    const bad = await swapQuote(q, {
      actions: [
        { target: token(B, "DAI"), functionSignature: "function transfer(address,uint256)", args: [{ value: "nope" }] },
      ],
    });
    expect(bad).toMatchObject({ status: 400, body: { type: "ServiceApiError", code: "ABI_ENCODING_ERROR" } });
    const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]));
    // fetch refuses a GET with a body; node:http sends one as any client may.
    const answer = await new Promise<{ status: number; body: Json }>((resolve, reject) => {
      const req = httpRequest(
        `${t.service.url}/api/swap/approval?${qs}`,
        {
          method: "GET",
          headers: {
            authorization: `Bearer ${t.service.apiKey}`,
            "content-type": "application/json",
            "content-length": String(JSON.stringify({ actions: [] }).length),
          },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : text }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ actions: [] }));
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { code: "INVALID_METHOD", message: "POST method required when request.body is provided" },
    });
  });
});

describe("/swap/approval bodies, read as the Across API reads them", () => {
  const q = () => base({ amount: "1000000", inputToken: token(A, "USDC"), outputToken: token(B, "USDC") });
  const badAction = { target: "0x000000000000000000000000000000000000dEaD", functionSignature: "function f(uint256)" };

  it("ignores undeclared fields (superstruct type()), and refuses null for an optional field (optional())", async () => {
    const unknown = await swapQuote(q(), {
      actions: [{ ...badAction, args: [{ value: "x", note: 1 }], tag: "a" }],
      v: 2,
    });
    expect(unknown).toMatchObject({ status: 400, body: { code: "ABI_ENCODING_ERROR" } });
    const nulled = await swapQuote(q(), { actions: [{ ...badAction, args: [], isNativeTransfer: null }] });
    expect(nulled).toMatchObject({ status: 400, body: { code: "INVALID_PARAM", param: "actions.0.isNativeTransfer" } });
  });

  it("refuses a body that is not labelled JSON (415): the anchor would quote without its actions", async () => {
    const qs = new URLSearchParams(Object.entries(q()).map(([k, v]) => [k, String(v)]));
    const body = JSON.stringify({ actions: [] });
    for (const headers of [{}, { "content-type": "text/plain" }] as Record<string, string>[]) {
      const res = await fetch(`${t.service.url}/api/swap/approval?${qs}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.service.apiKey}`, ...headers },
        body: new TextEncoder().encode(body),
      });
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ type: "ServiceApiError", status: 415 });
    }
  });
});

describe("/swap/approval bad input", () => {
  const ok = () => base({ amount: "100000000", inputToken: token(A, "USDC"), outputToken: token(B, "DAI") });
  const cases: [string, Record<string, string | number | boolean>, string, string | undefined][] = [
    ["appFee without a recipient", { appFee: 0.01 }, "INVALID_PARAM", "appFee, appFeeRecipient"],
    [
      "both source filters",
      { includeSources: "uniswap_v2", excludeSources: "uniswap_v2" },
      "INVALID_PARAM",
      "excludeSources, includeSources",
    ],
    ["an unknown source", { includeSources: "curve" }, "INVALID_PARAM", "includeSources"],
    ["slippage out of range", { slippage: "0.9" }, "INVALID_PARAM", "slippage"],
    ["slippage not a number", { slippage: "lots" }, "INVALID_PARAM", "slippage"],
    ["the same chain twice", { destinationChainId: A }, "INVALID_PARAM", "destinationChainId"],
    [
      "an unknown input token",
      { inputToken: "0x000000000000000000000000000000000000bEEF" },
      "INVALID_PARAM",
      "inputToken",
    ],
    ["a bad integrator id", { integratorId: "0xdeadbeef" }, "INVALID_PARAM", "integratorId"],
    ["a malformed amount", { amount: "1.5" }, "INVALID_PARAM", "amount"],
    ["a bad address", { depositor: "0x1234" }, "INVALID_PARAM", "depositor"],
    ["an amount beyond the limits", { amount: parseUnits("90000000", 6).toString() }, "AMOUNT_TOO_HIGH", undefined],
    ["fees above the input", { amount: "10" }, "AMOUNT_TOO_LOW", undefined],
    ["an unknown trade type", { tradeType: "bestEffort" }, "INVALID_PARAM", "tradeType"],
  ];
  it.each(cases)("%s", async (_name, over, code, param) => {
    const { status, body } = await swapQuote({ ...ok(), ...over });
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: "ServiceApiError", code, status: 400 });
    if (param) expect(body.param).toBe(param);
  });

  it("an output no pool can deliver is SWAP_LIQUIDITY_INSUFFICIENT", async () => {
    const { status, body } = await swapQuote(
      base({
        tradeType: "exactOutput",
        amount: parseUnits("5000", 18).toString(),
        inputToken: token(A, "USDC"),
        outputToken: token(B, "WETH"),
      }),
    );
    expect(status).toBe(400);
    expect(body.code).toMatch(/SWAP_LIQUIDITY_INSUFFICIENT|AMOUNT_TOO_HIGH/);
  });
});

describe("/swap/approval fuzzed", () => {
  it("answers 300 random parameter sets (and random action bodies) with 200 or a ServiceApiError, never a 5xx", async () => {
    let seed = 20_261_127;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const tokens = [
      token(A, "USDC"),
      token(A, "WETH"),
      token(B, "DAI"),
      token(B, "USDT"),
      zeroAddress,
      "0x000000000000000000000000000000000000bEEF",
      "0x123",
      "",
      "USDC",
    ];
    const addresses = [user(0).address, user(2).address, "0xnot-an-address", "", zeroAddress];
    // Per parameter: values a client would send, then values it should not; each request takes a good value
    // three times in four, so that the fuzz reaches the quote itself and not only the validation.
    const candidates: Record<string, [readonly unknown[], readonly unknown[]]> = {
      tradeType: [
        ["exactInput", "minOutput", "exactOutput"],
        ["bestEffort", ""],
      ],
      amount: [
        ["100000000", "25000000", "1000000000"],
        ["1", "9".repeat(78), "-5", "1e18", "0x10", "", "abc", "1.5"],
      ],
      inputToken: [[token(A, "USDC"), token(A, "WETH"), token(A, "USDT"), zeroAddress], tokens],
      outputToken: [[token(B, "USDC"), token(B, "DAI"), token(B, "WETH")], tokens],
      originChainId: [[A], [B, 1, 999_999, "abc", -1]],
      destinationChainId: [[B], [A, 137, 0, "x"]],
      depositor: [[user(0).address], addresses],
      recipient: [[user(2).address], addresses],
      refundAddress: [[user(2).address], addresses],
      refundOnOrigin: [[true, false], ["maybe"]],
      slippage: [
        ["auto", "0.01", "0.005"],
        ["0.6", "-1", "x", "NaN", "Infinity", "1e-3"],
      ],
      appFee: [
        [0.01, 0.001],
        [1, -1, "x", 2],
      ],
      appFeeRecipient: [[user(1).address], addresses],
      integratorId: [["0xdead"], ["0x1", "zz", "0xDEADBEEF"]],
      includeSources: [
        ["uniswap_v2", "uniswap"],
        ["curve", ""],
      ],
      excludeSources: [["uniswap_v3"], ["nope"]],
      skipChecks: [[true, false], ["maybe"]],
      skipOriginTxEstimation: [[true, false], [3]],
      strictTradeType: [[true, false], ["no"]],
      routingPreference: [["default", "across"], ["cheapest"]],
    };
    const required = ["amount", "inputToken", "outputToken", "originChainId", "destinationChainId", "depositor"];
    const codes = new Set<string>();
    let answered = 0;
    for (let i = 0; i < 300; i++) {
      const query: Record<string, string | number | boolean> = {};
      for (const [name, [good, bad]] of Object.entries(candidates)) {
        // Required parameters are present most of the time; optional ones now and then.
        if (random() < (required.includes(name) ? 0.97 : 0.2)) {
          query[name] = pick(random() < 0.75 ? good : bad) as string;
        }
      }
      const body =
        random() < 0.2
          ? {
              actions: [
                pick([
                  {
                    target: token(B, "DAI"),
                    functionSignature: "function transfer(address,uint256)",
                    args: [{ value: user(1).address }, { value: "1" }],
                  },
                  { target: "0x1", functionSignature: "function f(", args: [] },
                  {
                    target: token(B, "DAI"),
                    functionSignature: "function transfer(address,uint256)",
                    args: [{ value: [1, [2]] }],
                  },
                  { target: token(B, "DAI"), isNativeTransfer: true, value: "-1" },
                  "not an action",
                ]),
              ],
            }
          : undefined;
      const { status, body: answer } = await swapQuote(query, body);
      expect(status, JSON.stringify({ query, body, answer })).toBeLessThan(500);
      if (status === 200) answered++;
      else {
        expect(answer).toMatchObject({ type: "ServiceApiError", status, code: expect.stringMatching(/^[A-Z_]+$/) });
        codes.add(answer.code);
      }
    }
    // The fuzz reached the service's own refusals and quotes, not only the schema's refusals.
    expect(codes.size, [...codes].join()).toBeGreaterThanOrEqual(2);
    expect(answered).toBeGreaterThan(0);
  });
});

describe("/swap/approval when the market moves", () => {
  it("a destination swap whose pool moved below the minimum fails in the handler: the bridged USDC is refunded on the destination", async () => {
    const refundAddress = "0x00000000000000000000000000000000000ad0e1" as Address;
    const recipient = "0x00000000000000000000000000000000000ad0e2" as Address;
    const { body } = await swapQuote(
      base({
        amount: parseUnits("500", 6).toString(),
        inputToken: token(A, "USDC"),
        outputToken: token(B, "DAI"),
        recipient,
        refundAddress,
        slippage: "0.002",
        includeSources: "uniswap_v2", // the pool the trader moves
      }),
    );
    expect(body.crossSwapType).toBe("bridgeableToAny");
    // Someone buys a lot of DAI on the destination pool before the fill.
    await moveV2Pool(B, user(1), parseUnits("50000", 6), [token(B, "USDC"), token(B, "DAI")]);
    const { depositId } = await execute(body, user(0));
    expect((await filledStatus(depositId as bigint)).actionsSucceeded).toBe(false);
    expect(await balanceOf(B, token(B, "DAI"), recipient)).toBe(0n);
    expect(await balanceOf(B, token(B, "USDC"), refundAddress)).toBe(BigInt(body.steps.bridge.outputAmount));
  });

  it("an origin swap whose pool moved below the minimum reverts, and the depositor keeps the input", async () => {
    const trader = user(1);
    const [usdt, usdc] = [token(A, "USDT"), token(A, "USDC")];
    const { body } = await swapQuote(
      base({
        amount: parseUnits("1000", 6).toString(),
        inputToken: usdt,
        outputToken: token(B, "USDC"),
        depositor: trader.address,
        slippage: "0.002",
        includeSources: "uniswap_v2", // the pool the trader moves
      }),
    );
    expect(body.crossSwapType).toBe("anyToBridgeable");
    // Someone sells a lot of USDT into the same pool first.
    await moveV2Pool(A, trader, parseUnits("20000", 6), [usdt, usdc]);
    const before = await balanceOf(A, usdt, trader.address);
    const { receipt } = await execute(body, trader);
    expect(receipt.status).toBe("reverted");
    expect(await balanceOf(A, usdt, trader.address)).toBe(before);
  });
});
