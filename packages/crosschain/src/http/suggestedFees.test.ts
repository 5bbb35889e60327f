/**
 * `GET /suggested-fees` over HTTP: the crosschain service on a three-chain devnet, the devnet relayer as the
 * service's relayer, the chain-state cache warm.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAbi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { convertDecimals, WAD } from "../domain/fees/fixedPoint.ts";
import { minDepositForFees } from "../domain/fees/limits.ts";
import { computeLpFee, parseL1TokenConfig, resolveRateModel } from "../domain/fees/lpFee.ts";
import { type QuoteTestService, startQuoteTestService } from "../quotes/testing.ts";
import { createSuggestedFeesService } from "../services/suggestedFees.ts";
import { multicallInstructions } from "../testing/multicallInstructions.ts";

const hubPoolAbi = parseAbi([
  "function pooledTokens(address) view returns (address, bool, uint32, int256, uint256, uint256)",
  "function l1TokenConfig(address) view returns (string)",
]);
const erc20 = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address, uint256) returns (bool)",
]);

/** The anchor's response keys, in its order, plus the request id. */
const RESPONSE_KEYS = [
  "estimatedFillTimeSec",
  "capitalFeePct",
  "capitalFeeTotal",
  "relayGasFeePct",
  "relayGasFeeTotal",
  "relayFeePct",
  "relayFeeTotal",
  "lpFeePct",
  "timestamp",
  "isAmountTooLow",
  "quoteBlock",
  "exclusiveRelayer",
  "exclusivityDeadline",
  "spokePoolAddress",
  "destinationSpokePoolAddress",
  "totalRelayFee",
  "relayerCapitalFee",
  "relayerGasFee",
  "lpFee",
  "limits",
  "fillDeadline",
  "outputAmount",
  "inputToken",
  "outputToken",
  "id",
];

let t: QuoteTestService;
const ORIGIN = 10;
const DEST = 8453;

beforeAll(async () => {
  t = await startQuoteTestService({ chainIds: [1, ORIGIN, DEST], config: { apiKeyCacheTtlMs: 60_000 } });
});
afterAll(async () => {
  await t?.close();
});

const token = (chainId: number, symbol: string) => t.devnet.chain(chainId).tokens.find((x) => x.symbol === symbol)!;
const quote = (symbol: string, amount: bigint | string, extra: Record<string, string | number | boolean> = {}) =>
  t.get("/suggested-fees", {
    inputToken: token(ORIGIN, symbol).address,
    outputToken: token(DEST, symbol).address,
    originChainId: ORIGIN,
    destinationChainId: DEST,
    amount: String(amount),
    ...extra,
  });
const relayerBalance = (chainId: number, symbol: string) =>
  t.devnet.publicClient(chainId).readContract({
    address: token(chainId, symbol).address,
    abi: erc20,
    functionName: "balanceOf",
    args: [t.devnet.accounts.relayer.address],
  });
const expectError = (
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
  res: { status: number; body: any },
  status: number,
  code: string,
  param?: string,
) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ type: "ServiceApiError", code, status });
  expect(typeof res.body.message).toBe("string");
  expect(typeof res.body.id).toBe("string");
  if (param) expect(res.body.param).toBe(param);
};

describe("GET /suggested-fees: the quote", () => {
  it("returns the anchor's fields, consistent fee math (pct in 1e18) and the chain facts", async () => {
    const amount = parseUnits("1000", 6);
    const res = await quote("USDC", amount);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body;
    expect(Object.keys(b)).toEqual(RESPONSE_KEYS);

    // Totals: output = amount − totalRelayFee.total; total = capital + gas + LP (pct and amount).
    const big = (s: string) => BigInt(s);
    expect(big(b.outputAmount)).toBe(amount - big(b.totalRelayFee.total));
    expect(big(b.totalRelayFee.pct)).toBe(big(b.relayerCapitalFee.pct) + big(b.relayerGasFee.pct) + big(b.lpFee.pct));
    expect(big(b.totalRelayFee.total)).toBe(
      big(b.relayerCapitalFee.total) + big(b.relayerGasFee.total) + big(b.lpFee.total),
    );
    expect([b.relayFeePct, b.relayFeeTotal]).toEqual([b.totalRelayFee.pct, b.totalRelayFee.total]);
    expect([b.capitalFeePct, b.capitalFeeTotal]).toEqual([b.relayerCapitalFee.pct, b.relayerCapitalFee.total]);
    expect([b.relayGasFeePct, b.relayGasFeeTotal]).toEqual([b.relayerGasFee.pct, b.relayerGasFee.total]);
    // LP fee: the rate model and utilization of the HubPool's USDC pool on the hub chain (chain 1).
    expect(b.lpFeePct).toBe("0");
    const hub = t.devnet.chain(1);
    const [, , , utilizedReserves, liquidReserves] = await t.devnet.publicClient(1).readContract({
      address: hub.contracts.hubPool,
      abi: hubPoolAbi,
      functionName: "pooledTokens",
      args: [token(1, "USDC").address],
    });
    const config = await t.devnet.publicClient(1).readContract({
      address: hub.contracts.configStore,
      abi: hubPoolAbi,
      functionName: "l1TokenConfig",
      args: [token(1, "USDC").address],
    });
    const expectedLp = computeLpFee({
      amount,
      inputDecimals: 6,
      l1Decimals: 6,
      reserves: { liquidReserves, utilizedReserves },
      rateModel: resolveRateModel(parseL1TokenConfig(config), ORIGIN, DEST),
    });
    expect(expectedLp.total).toBeGreaterThan(0n);
    expect(b.lpFee).toEqual({ pct: expectedLp.pct.toString(), total: expectedLp.total.toString() });
    for (const fee of [b.totalRelayFee, b.relayerCapitalFee, b.relayerGasFee]) {
      expect(big(fee.total)).toBe((amount * big(fee.pct)) / WAD);
    }
    // USDC capital fee: a flat 1 bp = 1e14 in 1e18 fixed point.
    expect(b.relayerCapitalFee.pct).toBe("100000000000000");

    // Gas fee from the cached chain state: fill gas × gas price, in USDC at the pool price.
    const snapshot = t.quotes.cache.snapshot();
    const dest = snapshot.chains.get(DEST)!;
    const origin = snapshot.chains.get(ORIGIN)!;
    const usdcDest = token(DEST, "USDC").address.toLowerCase();
    const nativeCost = dest.fillGas.get(usdcDest)!.gasUnits * dest.gasPrice;
    const gasInToken = convertDecimals((nativeCost * WAD) / dest.prices.inNative.get(usdcDest)!, 18, 6);
    expect(big(b.relayerGasFee.pct)).toBe((gasInToken * WAD) / amount);
    expect(big(b.relayerGasFee.pct)).toBeGreaterThan(0n);

    // Quote timestamp, block, deadlines, exclusivity, spoke pools, tokens.
    expect(b.timestamp).toBe(String(origin.blockTimestamp));
    expect(b.quoteBlock).toBe(String(origin.blockNumber));
    expect(Number(b.fillDeadline)).toBe(Number(b.timestamp) + 7200);
    expect(b.exclusiveRelayer).toBe("0x0000000000000000000000000000000000000000");
    expect(b.exclusivityDeadline).toBe(0);
    expect(b.spokePoolAddress).toBe(t.devnet.chain(ORIGIN).contracts.spokePool);
    expect(b.destinationSpokePoolAddress).toBe(t.devnet.chain(DEST).contracts.spokePool);
    expect(b.isAmountTooLow).toBe(false);
    expect(b.estimatedFillTimeSec).toBe(10);
    expect(b.inputToken).toEqual({
      address: token(ORIGIN, "USDC").address,
      symbol: "USDC",
      decimals: 6,
      chainId: ORIGIN,
    });
    expect(b.outputToken).toEqual({ address: token(DEST, "USDC").address, symbol: "USDC", decimals: 6, chainId: DEST });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("charges a larger LP fee share for a deposit that uses more of the pool (utilization)", async () => {
    const small = await quote("USDC", parseUnits("1000", 6));
    const large = await quote("USDC", parseUnits("2000000", 6));
    expect(large.status, JSON.stringify(large.body)).toBe(200);
    expect(BigInt(large.body.lpFee.pct)).toBeGreaterThan(BigInt(small.body.lpFee.pct) * 100n);
  });

  it("bounds limits by the relayer's destination balance × 0.8, for tokens of any decimals", async () => {
    for (const [symbol, amount] of [
      ["USDC", parseUnits("10", 6)],
      ["WETH", parseUnits("1", 18)],
      ["WBTC", parseUnits("0.1", 8)],
      ["DAI", parseUnits("10", 18)],
    ] as const) {
      const res = await quote(symbol, amount);
      expect(res.status, `${symbol} ${JSON.stringify(res.body)}`).toBe(200);
      const buffered = ((await relayerBalance(DEST, symbol)) * 8n) / 10n;
      const { limits } = res.body;
      expect(limits.maxDeposit).toBe(String(buffered));
      expect(limits.maxDepositInstant).toBe(String(buffered));
      expect(limits.maxDepositShortDelay).toBe(String(buffered));
      expect(limits.recommendedDepositInstant).toBe(String(buffered));
      // minDeposit: the amount whose gas fee is 25% minus the capital fee (the anchor's formula).
      const expectedMin = minDepositForFees({
        gasFeeTotal: BigInt(res.body.relayerGasFee.total),
        capitalFeePct: BigInt(res.body.relayerCapitalFee.pct),
      });
      expect(BigInt(limits.minDeposit)).toBe(expectedMin);
    }
  });

  it("follows the relayer's balance: limits move on the next refresh", async () => {
    const usdc = token(DEST, "USDC");
    const wallet = t.devnet.walletClient(DEST, t.devnet.accounts.relayer);
    const hash = await wallet.writeContract({
      address: usdc.address,
      abi: erc20,
      functionName: "transfer",
      args: [t.devnet.accounts.users[0]!.address, parseUnits("4000000", 6)],
    });
    await t.devnet.publicClient(DEST).waitForTransactionReceipt({ hash });
    // The first refresh may be one an earlier quote started before the transfer (refresh() joins it).
    await t.quotes.cache.refresh();
    await t.quotes.cache.refresh();
    const balance = await relayerBalance(DEST, "USDC");
    const res = await quote("USDC", parseUnits("100", 6));
    expect(res.body.limits.maxDeposit).toBe(String((balance * 8n) / 10n));
    // Above the new maximum: refused.
    expectError(await quote("USDC", (balance * 8n) / 10n + 1n), 400, "AMOUNT_TOO_HIGH");
  });

  it("quotes native ETH routes (isNative=true) with the wrapped token and symbol ETH", async () => {
    const res = await quote("WETH", parseUnits("0.5", 18), { isNative: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.inputToken).toMatchObject({ address: token(ORIGIN, "WETH").address, symbol: "ETH" });
    expect(res.body.outputToken).toMatchObject({ address: token(DEST, "WETH").address, symbol: "ETH" });
    // WETH's capital fee curve (1 bp falling to 0.75 bp at 0.3): between the two at 0.5.
    const capital = BigInt(res.body.relayerCapitalFee.pct);
    expect(capital).toBeLessThan(100_000_000_000_000n);
    expect(capital).toBeGreaterThan(75_000_000_000_000n);
    expectError(await quote("USDC", parseUnits("10", 6), { isNative: true }), 400, "INVALID_PARAM", "isNative");
  });

  it("accepts the legacy token parameter and a caller timestamp within 10 minutes of the chain head", async () => {
    const legacy = await t.get("/suggested-fees", {
      token: token(ORIGIN, "DAI").address,
      originChainId: ORIGIN,
      destinationChainId: DEST,
      amount: parseUnits("50", 18).toString(),
    });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);
    expect(legacy.body.outputToken.address).toBe(token(DEST, "DAI").address);

    const head = t.quotes.cache.snapshot().chains.get(ORIGIN)!.blockTimestamp;
    const ok = await quote("USDC", parseUnits("10", 6), { timestamp: head - 300 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.timestamp).toBe(String(head - 300));
    expect(ok.body.fillDeadline).toBe(String(head - 300 + 7200));
    expectError(
      await quote("USDC", parseUnits("10", 6), { timestamp: head + 3600 }),
      400,
      "INVALID_PARAM",
      "timestamp",
    );
    expectError(await quote("USDC", parseUnits("10", 6), { timestamp: head - 700 }), 400, "INVALID_PARAM", "timestamp");
  });
});

describe("GET /suggested-fees: refusals", () => {
  it("AMOUNT_TOO_LOW below minDeposit, unless skipAmountLimit=true (then isAmountTooLow)", async () => {
    expectError(await quote("USDC", 1000n), 400, "AMOUNT_TOO_LOW");
    const res = await quote("USDC", 1000n, { skipAmountLimit: true });
    expect(res.status).toBe(200);
    expect(res.body.isAmountTooLow).toBe(true);
    expect(BigInt(res.body.limits.minDeposit)).toBeGreaterThan(1000n);
  });

  it("AMOUNT_TOO_HIGH above maxDeposit, with the anchor's message", async () => {
    const max = ((await relayerBalance(DEST, "WBTC")) * 8n) / 10n;
    const res = await quote("WBTC", max + 1n);
    expectError(res, 400, "AMOUNT_TOO_HIGH");
    expect(res.body.message).toMatch(/^Amount exceeds max\. deposit limit: [\d.]+ WBTC$/);
    expect((await quote("WBTC", max)).status).toBe(200);
  });

  it("ROUTE_NOT_ENABLED for a pair of tokens without a route", async () => {
    const res = await t.get("/suggested-fees", {
      inputToken: token(ORIGIN, "USDC").address,
      outputToken: token(DEST, "DAI").address,
      originChainId: ORIGIN,
      destinationChainId: DEST,
      amount: "1000000",
    });
    expectError(res, 400, "ROUTE_NOT_ENABLED");
    expect(res.body.message).toBe("Route is not enabled.");
  });

  it("INVALID_PARAM for the same origin and destination, unknown tokens, an ambiguous origin", async () => {
    expectError(
      await quote("USDC", 10n ** 7n, { destinationChainId: ORIGIN }),
      400,
      "INVALID_PARAM",
      "destinationChainId",
    );
    const unknown = "0x1111111111111111111111111111111111111111";
    expectError(await quote("USDC", 10n ** 7n, { inputToken: unknown }), 400, "INVALID_PARAM", "inputToken");
    expectError(await quote("USDC", 10n ** 7n, { outputToken: unknown }), 400, "INVALID_PARAM", "outputToken");
    // A chain of the enumeration without a SpokePool here.
    expectError(await quote("USDC", 10n ** 7n, { originChainId: 137 }), 400, "INVALID_PARAM", "inputToken");
    expectError(await quote("USDC", 10n ** 7n, { destinationChainId: 42161 }), 400, "INVALID_PARAM", "outputToken");
    // Without originChainId: the devnet token addresses are the same on 1 and 10, both route to 8453.
    const ambiguous = await t.get("/suggested-fees", {
      inputToken: token(ORIGIN, "USDC").address,
      outputToken: token(DEST, "USDC").address,
      destinationChainId: DEST,
      amount: "10000000",
    });
    expectError(ambiguous, 400, "INVALID_PARAM", "originChainId");
    expect(ambiguous.body.message).toMatch(/specify the originChainId/);
    const notAToken = await t.get("/suggested-fees", {
      inputToken: unknown,
      outputToken: unknown,
      destinationChainId: DEST,
      amount: "1",
    });
    expectError(notAToken, 400, "INVALID_PARAM", "inputToken");
  });

  it("message: needs a contract recipient (EOA → 400), a valid hex string, and a fill that simulates", async () => {
    const handler = t.devnet.chain(DEST).contracts.multicallHandler;
    const instructions = multicallInstructions(t.devnet.accounts.users[0]!.address);
    const amount = parseUnits("100", 6);
    const eoa = t.devnet.accounts.users[1]!.address;
    expectError(
      await quote("USDC", amount, { message: instructions, recipient: eoa }),
      400,
      "INVALID_PARAM",
      "recipient",
    );
    expectError(await quote("USDC", amount, { message: instructions }), 400, "INVALID_PARAM", "recipient");
    expectError(await quote("USDC", amount, { message: "0xabc", recipient: handler }), 400, "INVALID_PARAM", "message");
    expectError(await quote("USDC", amount, { message: "hello", recipient: handler }), 400, "INVALID_PARAM", "message");
    expectError(await quote("USDC", amount, { message: "0x1234", recipient: handler }), 400, "SIMULATION_ERROR");

    const withMessage = await quote("USDC", amount, { message: instructions, recipient: handler });
    expect(withMessage.status, JSON.stringify(withMessage.body)).toBe(200);
    const plain = await quote("USDC", amount, { recipient: eoa, message: "0x" }); // "0x" = no message
    expect(plain.status).toBe(200);
    // The message fill (full amount, handler call) costs more gas than the plain 100-unit simulation.
    expect(BigInt(withMessage.body.relayerGasFee.total)).toBeGreaterThan(BigInt(plain.body.relayerGasFee.total));
  });

  it("mismatched decimals need allowUnmatchedDecimals=true; the origin resolves from a unique route", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routes-"));
    const routesFile = join(dir, "routes.json");
    writeFileSync(
      routesFile,
      JSON.stringify({
        includeDefaults: true,
        routes: [{ originChainId: ORIGIN, destinationChainId: DEST, originToken: "USDC", destinationToken: "DAI" }],
      }),
    );
    const other = await startQuoteTestService({ chainIds: [ORIGIN, DEST], routesFile, devnet: t.devnet });
    try {
      const query = {
        inputToken: token(ORIGIN, "USDC").address,
        outputToken: token(DEST, "DAI").address,
        destinationChainId: DEST,
        amount: parseUnits("100", 6).toString(),
      };
      expectError(await other.get("/suggested-fees", query), 400, "INVALID_PARAM", "allowUnmatchedDecimals");
      const res = await other.get("/suggested-fees", { ...query, allowUnmatchedDecimals: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.inputToken).toMatchObject({ chainId: ORIGIN, decimals: 6, symbol: "USDC" });
      expect(res.body.outputToken).toMatchObject({ chainId: DEST, decimals: 18, symbol: "DAI" });
      // outputAmount in the output token's decimals: (amount − fees) × 1e12.
      expect(BigInt(res.body.outputAmount)).toBe(
        (parseUnits("100", 6) - BigInt(res.body.totalRelayFee.total)) * 10n ** 12n,
      );
    } finally {
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("GET /suggested-fees: bad input never makes a 500", () => {
  const base = () => ({
    inputToken: token(ORIGIN, "USDC").address,
    outputToken: token(DEST, "USDC").address,
    originChainId: String(ORIGIN),
    destinationChainId: String(DEST),
    amount: "10000000",
  });
  const cases: [string, Record<string, string | undefined>, string, string][] = [
    ["amount missing", { amount: undefined }, "MISSING_PARAM", "amount"],
    ["amount not a number", { amount: "abc" }, "INVALID_PARAM", "amount"],
    ["amount negative", { amount: "-5" }, "INVALID_PARAM", "amount"],
    ["amount decimal", { amount: "1.5" }, "INVALID_PARAM", "amount"],
    ["amount zero", { amount: "0" }, "INVALID_PARAM", "amount"],
    ["amount too long", { amount: "9".repeat(80) }, "INVALID_PARAM", "amount"],
    ["amount above uint256", { amount: "9".repeat(78) }, "AMOUNT_TOO_HIGH", ""],
    ["inputToken not an address", { inputToken: "0x1234" }, "INVALID_PARAM", "inputToken"],
    ["outputToken not an address", { outputToken: "USDC" }, "INVALID_PARAM", "outputToken"],
    ["token not an address", { token: "nope", inputToken: undefined }, "INVALID_PARAM", "token"],
    ["no input token", { inputToken: undefined }, "MISSING_PARAM", "inputToken"],
    ["no output token", { outputToken: undefined }, "MISSING_PARAM", "outputToken"],
    ["originChainId text", { originChainId: "optimism" }, "INVALID_PARAM", "originChainId"],
    ["originChainId not enumerated", { originChainId: "5" }, "INVALID_PARAM", "originChainId"],
    ["originChainId zero", { originChainId: "0" }, "INVALID_PARAM", "originChainId"],
    ["destinationChainId missing", { destinationChainId: undefined }, "MISSING_PARAM", "destinationChainId"],
    ["destinationChainId not enumerated", { destinationChainId: "12345" }, "INVALID_PARAM", "destinationChainId"],
    ["timestamp text", { timestamp: "yesterday" }, "INVALID_PARAM", "timestamp"],
    ["timestamp negative", { timestamp: "-1" }, "INVALID_PARAM", "timestamp"],
    ["timestamp beyond uint32", { timestamp: "99999999999" }, "INVALID_PARAM", "timestamp"],
    ["skipAmountLimit not boolean", { skipAmountLimit: "maybe" }, "INVALID_PARAM", "skipAmountLimit"],
    [
      "allowUnmatchedDecimals not boolean",
      { allowUnmatchedDecimals: "sure" },
      "INVALID_PARAM",
      "allowUnmatchedDecimals",
    ],
    ["isNative not boolean", { isNative: "2" }, "INVALID_PARAM", "isNative"],
    ["message too long", { message: `0x${"ab".repeat(7000)}` }, "INVALID_PARAM", "message"],
    ["recipient not an address", { recipient: "alice" }, "INVALID_PARAM", "recipient"],
    ["relayer not an address", { relayer: "0xZZ" }, "INVALID_PARAM", "relayer"],
  ];

  it.each(cases)("%s", async (_name, change, code, param) => {
    const query = { ...base(), ...change };
    const res = await t.get("/suggested-fees", query);
    expectError(res, 400, code, param || undefined);
  });

  it("401 without or with a wrong API key", async () => {
    expectError(await t.get("/suggested-fees", base(), null), 401, "UNAUTHORIZED");
    expectError(await t.get("/suggested-fees", base(), "not-a-key"), 401, "UNAUTHORIZED");
  });
});

describe("GET /limits", () => {
  const limits = (symbol: string, extra: Record<string, string | number | boolean> = {}) =>
    t.get("/limits", {
      inputToken: token(ORIGIN, symbol).address,
      outputToken: token(DEST, symbol).address,
      originChainId: ORIGIN,
      destinationChainId: DEST,
      ...extra,
    });

  it("answers the limits /suggested-fees returns for the same deposit, with their fee details and reserves", async () => {
    for (const [symbol, amount] of [
      ["USDC", parseUnits("10", 6)],
      ["WETH", parseUnits("1", 18)],
    ] as const) {
      const [fees, res] = await Promise.all([quote(symbol, amount), limits(symbol, { amount: String(amount) })]);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { limits: quoted } = fees.body;
      expect(res.body).toMatchObject(quoted);
      expect(res.body.maxDeposit).toBe(String(((await relayerBalance(DEST, symbol)) * 8n) / 10n));
      expect(res.body.relayerFeeDetails).toEqual({
        relayFeeTotal: String(BigInt(fees.body.relayerGasFee.total) + BigInt(fees.body.relayerCapitalFee.total)),
        relayFeePercent: String(BigInt(fees.body.relayerGasFee.pct) + BigInt(fees.body.relayerCapitalFee.pct)),
        gasFeeTotal: fees.body.relayerGasFee.total,
        gasFeePercent: fees.body.relayerGasFee.pct,
        capitalFeeTotal: fees.body.relayerCapitalFee.total,
        capitalFeePercent: fees.body.relayerCapitalFee.pct,
      });
      const gas = res.body.gasFeeDetails;
      expect(BigInt(gas.tokenGasCost)).toBe(BigInt(gas.nativeGasCost) * BigInt(gas.gasPrice));
      // The HubPool's pool of the token on the hub chain (chain 1), as the devnet seeded it.
      const hub = t.devnet.chain(1);
      const [, , , , liquidReserves] = await t.devnet.publicClient(1).readContract({
        address: hub.contracts.hubPool,
        abi: hubPoolAbi,
        functionName: "pooledTokens",
        args: [token(1, symbol).address],
      });
      expect(res.body.reserves.liquidReserves).toBe(String(liquidReserves));
      expect(typeof res.body.id).toBe("string");
    }
  });

  it("defaults the amount to one whole token, and never refuses an amount (AMOUNT_TOO_HIGH/LOW are quotes' refusals)", async () => {
    const [byDefault, oneToken] = await Promise.all([
      limits("WETH"),
      limits("WETH", { amount: parseUnits("1", 18).toString() }),
    ]);
    expect(byDefault.status).toBe(200);
    const { id: _a, ...a } = byDefault.body;
    const { id: _b, ...b } = oneToken.body;
    expect(a).toEqual(b);
    const max = BigInt(byDefault.body.maxDeposit);
    expect((await limits("WETH", { amount: String(max * 2n) })).status).toBe(200);
    expect((await limits("WETH", { amount: "1" })).status).toBe(200);
  });

  it("refuses as the anchor: a message without an amount, a missing token, a disabled route, bad input", async () => {
    expectError(
      await limits("USDC", { message: "0x1234", recipient: `0x${"ab".repeat(20)}` }),
      400,
      "MISSING_PARAM",
      "amount",
    );
    expectError(
      await t.get("/limits", {
        inputToken: token(ORIGIN, "USDC").address,
        originChainId: ORIGIN,
        destinationChainId: DEST,
      }),
      400,
      "MISSING_PARAM",
      "outputToken",
    );
    expectError(
      await t.get("/limits", {
        inputToken: token(ORIGIN, "USDC").address,
        outputToken: token(DEST, "DAI").address,
        originChainId: ORIGIN,
        destinationChainId: DEST,
      }),
      400,
      "ROUTE_NOT_ENABLED",
    );
    expectError(await limits("USDC", { amount: "ten" }), 400, "INVALID_PARAM", "amount");
    expectError(await limits("USDC", { amount: "0" }), 400, "INVALID_PARAM", "amount");
    expectError(await limits("USDC", { destinationChainId: 5 }), 400, "INVALID_PARAM", "destinationChainId");
    expectError(await t.get("/limits", {}, null), 401, "UNAUTHORIZED");
  });
});

describe("GET /suggested-fees: hot path", () => {
  it("answers from the cache, and keeps answering with every chain node stopped", async () => {
    // Its latency is a benchmark's business (bench/crosschain: p50/p99 warm), not a timed test's.
    const amount = parseUnits("250", 6).toString();
    const q = {
      inputToken: token(ORIGIN, "USDC").address,
      outputToken: token(DEST, "USDC").address,
      originChainId: ORIGIN,
      destinationChainId: DEST,
      amount,
    };
    const direct = await createSuggestedFeesService(t.quotes).quote(q);
    expect(direct.outputAmount).toEqual(expect.any(String));
    // No RPC on the hot path: with every anvil node gone, quotes still come from the cache.
    const before = await t.get("/suggested-fees", q);
    await t.devnet.stop();
    const after = await t.get("/suggested-fees", q);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    const { id: _a, ...restBefore } = before.body;
    const { id: _b, ...restAfter } = after.body;
    expect(restAfter).toEqual(restBefore);
    expect((await t.get("/available-routes", { originChainId: ORIGIN })).status).toBe(200);
    // A quote that must ask the chain (is this recipient a contract?) says so, in the error body, without
    // the RPC's own error text (which can carry its URL).
    const asks = await t.get("/suggested-fees", { ...q, message: "0x1234", recipient: `0x${"ab".repeat(20)}` });
    expect(asks.status).toBe(502);
    expect(asks.body).toMatchObject({
      type: "ServiceApiError",
      code: "UPSTREAM_RPC_ERROR",
      status: 502,
      message: `Could not check the recipient on chain ${DEST}: its RPC is not answering; try again later`,
    });
  });
});
