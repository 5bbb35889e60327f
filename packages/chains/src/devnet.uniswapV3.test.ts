import { type Abi, type Address, domainSeparator, type Hex, parseUnits } from "viem";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "./artifacts.ts";
import type { DevnetV3Pool } from "./deploy.ts";
import { manifestChainEndpoints, manifestToken } from "./manifest.ts";
import { useDevnet } from "./testing/devnetFixture.ts";
import {
  encodeSqrtPriceX96,
  encodeV3Path,
  fullRangeTicks,
  priceFromSqrtPriceX96,
  V3_POOL_INIT_CODE_HASH,
  v3PoolAddress,
  v3PoolArtifactHash,
} from "./uniswapV3.ts";

// Uniswap V3 (real v3-core / v3-periphery bytecode) on two devnet chains: the pools the template carries, and
// swaps through the SwapRouter.
const A = 10;
const B = 8453;
const devnet = useDevnet({ chainIds: [A, B] });

const erc20Abi = loadArtifact("ExpandedERC20").abi;
const factoryAbi = loadArtifact("UniswapV3Factory").abi;
const poolAbi = loadArtifact("UniswapV3Pool").abi;
const routerAbi = loadArtifact("SwapRouter").abi;
const positionManagerAbi = loadArtifact("NonfungiblePositionManager").abi;

/** What each pool was seeded with (whole units of the listed tokens) and the price it must show. */
const EXPECTED: Record<string, { fee: number; a: string; b: string; amountA: string; amountB: string; price: number }> =
  {
    "USDC/WETH": { fee: 500, a: "USDC", b: "WETH", amountA: "1500000", amountB: "500", price: 1 / 3000 },
    "USDT/USDC": { fee: 100, a: "USDT", b: "USDC", amountA: "2000000", amountB: "2000000", price: 1 },
    "DAI/USDC": { fee: 100, a: "DAI", b: "USDC", amountA: "500000", amountB: "500000", price: 1 },
    "WBTC/WETH": { fee: 3000, a: "WBTC", b: "WETH", amountA: "10", amountB: "300", price: 30 },
  };

async function read<T>(chainId: number, address: Address, abi: Abi, functionName: string, args: unknown[] = []) {
  return (await devnet().publicClient(chainId).readContract({ address, abi, functionName, args })) as T;
}

const balanceOf = (chainId: number, token: Address, who: Address) =>
  read<bigint>(chainId, token, erc20Abi, "balanceOf", [who]);

/** Constant-product output with the fee taken from the input: a full-range V3 position quotes like this. */
function constantProductOut(reserveIn: bigint, reserveOut: bigint, amountIn: bigint, fee: number): bigint {
  const inAfterFee = amountIn * BigInt(1_000_000 - fee);
  return (reserveOut * inAfterFee) / (reserveIn * 1_000_000n + inAfterFee);
}

/** |actual − expected| ≤ expected / 10,000. */
function expectClose(actual: bigint, expected: bigint, label: string): void {
  const diff = actual > expected ? actual - expected : expected - actual;
  expect(diff * 10_000n <= expected, `${label}: ${actual} vs ${expected}`).toBe(true);
}

function poolNamed(chainId: number, name: string): DevnetV3Pool {
  const p = devnet()
    .chain(chainId)
    .v3Pools.find((x) => x.name === name);
  if (!p) throw new Error(`no V3 pool ${name}`);
  return p;
}

/** Approves the SwapRouter, runs `functionName` (simulated first for its result), and returns the result. */
async function swap(chainId: number, token: Address, approve: bigint, functionName: string, params: object) {
  const f = devnet();
  const user = f.accounts.users[0];
  if (!user) throw new Error("demo user missing");
  const client = f.publicClient(chainId);
  const wallet = f.walletClient(chainId, user);
  const router = f.chain(chainId).contracts.uniswapV3SwapRouter;
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [router, approve],
    }),
  });
  // The deadline from the chain's clock, not this process's.
  const deadline = (await client.getBlock()).timestamp + 600n;
  const call = {
    address: router,
    abi: routerAbi,
    functionName,
    args: [{ ...params, recipient: user.address, deadline }],
  } as const;
  const { result } = await client.simulateContract({ ...call, account: user.address });
  // A fixed limit: no estimate taken in another second (oracle writes) to fall short.
  const receipt = await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ ...call, gas: 1_000_000n }),
  });
  expect(receipt.status).toBe("success");
  return { result: result as bigint, user: user.address };
}

describe("Uniswap V3 helpers", () => {
  it("full-range ticks are the extreme multiples of the tick spacing, as v3 computes them", () => {
    expect(fullRangeTicks(1)).toEqual({ tickLower: -887272, tickUpper: 887272 });
    expect(fullRangeTicks(10)).toEqual({ tickLower: -887270, tickUpper: 887270 });
    expect(fullRangeTicks(60)).toEqual({ tickLower: -887220, tickUpper: 887220 });
    expect(fullRangeTicks(200)).toEqual({ tickLower: -887200, tickUpper: 887200 });
  });

  it("encodes prices and paths like the v3-sdk", () => {
    expect(encodeSqrtPriceX96(1n, 1n)).toBe(2n ** 96n);
    expect(encodeSqrtPriceX96(4n, 1n)).toBe(2n ** 97n);
    // 1 WETH (18 decimals) = 3000 USDC (6 decimals), WETH as token0: the sqrt of 3000e6 / 1e18, in Q96.
    expect(priceFromSqrtPriceX96(encodeSqrtPriceX96(3000n * 10n ** 6n, 10n ** 18n), 18, 6)).toBeCloseTo(3000, 6);
    const a = "0x1111111111111111111111111111111111111111";
    const b = "0x2222222222222222222222222222222222222222";
    expect(encodeV3Path([a, b], [500])).toBe(`${a}0001f4${b.slice(2)}`);
    expect(() => encodeV3Path([a, b], [])).toThrow();
  });
});

describe("devnet: Uniswap V3", () => {
  it("deploys the npm pool bytecode, whose hash is the periphery's POOL_INIT_CODE_HASH", () => {
    expect(v3PoolArtifactHash()).toBe(V3_POOL_INIT_CODE_HASH);
  });

  it("wires factory, SwapRouter and NonfungiblePositionManager together, fee tier 100 enabled", async () => {
    const f = devnet();
    const separators = new Set<Hex>();
    for (const chainId of [A, B]) {
      const c = f.chain(chainId);
      const { uniswapV3Factory: factory, uniswapV3SwapRouter: router, uniswapV3PositionManager: npm } = c.contracts;
      expect(await read(chainId, factory, factoryAbi, "owner")).toBe(f.accounts.admin.address);
      for (const [fee, spacing] of [
        [100, 1],
        [500, 10],
        [3000, 60],
        [10000, 200],
      ]) {
        expect(await read(chainId, factory, factoryAbi, "feeAmountTickSpacing", [fee])).toBe(spacing);
      }
      for (const [address, abi] of [
        [router, routerAbi],
        [npm, positionManagerAbi],
      ] as const) {
        expect(await read(chainId, address, abi, "factory")).toBe(factory);
        expect(await read(chainId, address, abi, "WETH9")).toBe(c.contracts.weth9);
      }
      // The position manager's permit domain follows the chain it runs on, though its code came from the template.
      const separator = await read<Hex>(chainId, npm, positionManagerAbi, "DOMAIN_SEPARATOR");
      expect(separator).toBe(
        domainSeparator({
          domain: { name: "Uniswap V3 Positions NFT-V1", version: "1", chainId, verifyingContract: npm },
        }),
      );
      separators.add(separator);
    }
    expect(separators.size).toBe(2);
    // Services get the addresses through ChainEndpoint.contracts.
    for (const endpoint of manifestChainEndpoints(f.manifest)) {
      const { uniswapV3Factory, uniswapV3SwapRouter, uniswapV3PositionManager } = f.chain(endpoint.chainId).contracts;
      expect(endpoint.contracts).toMatchObject({ uniswapV3Factory, uniswapV3SwapRouter, uniswapV3PositionManager });
    }
  });

  it("has every pool at its V2 price with full-range liquidity owned by the admin", async () => {
    const f = devnet();
    for (const chainId of [A, B]) {
      const c = f.chain(chainId);
      const npm = c.contracts.uniswapV3PositionManager;
      expect(c.v3Pools.map((p) => p.name).sort()).toEqual(Object.keys(EXPECTED).sort());
      expect(await read(chainId, npm, positionManagerAbi, "balanceOf", [f.accounts.admin.address])).toBe(4n);
      for (const [i, p] of c.v3Pools.entries()) {
        const e = EXPECTED[p.name];
        if (!e) throw new Error(`unexpected pool ${p.name}`);
        const a = manifestToken(c, e.a);
        const b = manifestToken(c, e.b);
        const aIsToken0 = a.address === p.token0;
        const [t0, t1] = aIsToken0 ? [a, b] : [b, a];
        const [amount0, amount1] = aIsToken0
          ? [parseUnits(e.amountA, a.decimals), parseUnits(e.amountB, b.decimals)]
          : [parseUnits(e.amountB, b.decimals), parseUnits(e.amountA, a.decimals)];

        expect(p.fee).toBe(e.fee);
        expect(p.pool).toBe(v3PoolAddress(c.contracts.uniswapV3Factory, a.address, b.address, e.fee));
        expect(
          await read(chainId, c.contracts.uniswapV3Factory, factoryAbi, "getPool", [a.address, b.address, e.fee]),
        ).toBe(p.pool);
        expect(await read(chainId, p.pool, poolAbi, "token0")).toBe(t0.address);
        expect(await read(chainId, p.pool, poolAbi, "token1")).toBe(t1.address);
        expect(await read(chainId, p.pool, poolAbi, "fee")).toBe(e.fee);
        expect(await read(chainId, p.pool, poolAbi, "tickSpacing")).toBe(p.tickSpacing);

        const [sqrtPriceX96] = await read<readonly [bigint, number]>(chainId, p.pool, poolAbi, "slot0");
        expect(sqrtPriceX96).toBe(encodeSqrtPriceX96(amount1, amount0));
        // Price of the listed first token in the second: 1 USDC = 1/3000 WETH, 1 WBTC = 30 WETH, stables at par.
        const price0In1 = priceFromSqrtPriceX96(sqrtPriceX96, t0.decimals, t1.decimals);
        const priceAInB = aIsToken0 ? price0In1 : 1 / price0In1;
        expect(priceAInB / e.price).toBeCloseTo(1, 9);

        // The admin's position i + 1 is this pool's, over the full tick range, holding all its liquidity.
        const tokenId = BigInt(i + 1);
        expect(await read(chainId, npm, positionManagerAbi, "ownerOf", [tokenId])).toBe(f.accounts.admin.address);
        const position = await read<readonly unknown[]>(chainId, npm, positionManagerAbi, "positions", [tokenId]);
        const [, , token0, token1, fee, tickLower, tickUpper, liquidity] = position;
        expect([token0, token1, fee]).toEqual([t0.address, t1.address, e.fee]);
        const range = fullRangeTicks(p.tickSpacing);
        expect([tickLower, tickUpper]).toEqual([range.tickLower, range.tickUpper]);
        const poolLiquidity = await read<bigint>(chainId, p.pool, poolAbi, "liquidity");
        expect(poolLiquidity).toBe(liquidity);
        expect(poolLiquidity).toBeGreaterThan(0n);
        // The pool holds (almost exactly) what was deposited: a full-range position takes both amounts.
        expectClose(await balanceOf(chainId, t0.address, p.pool), amount0, `${p.name} token0`);
        expectClose(await balanceOf(chainId, t1.address, p.pool), amount1, `${p.name} token1`);
      }
    }
  });

  it("swaps USDC for WETH with exactInputSingle (fee 500) at ~3000 USDC/ETH", async () => {
    const c = devnet().chain(A);
    const usdc = manifestToken(c, "USDC").address;
    const weth = manifestToken(c, "WETH").address;
    const pool = poolNamed(A, "USDC/WETH");
    const amountIn = parseUnits("3000", 6);
    const reserveUsdc = await balanceOf(A, usdc, pool.pool);
    const reserveWeth = await balanceOf(A, weth, pool.pool);
    const user = devnet().accounts.users[0]?.address as Address;
    const [usdcBefore, wethBefore] = [await balanceOf(A, usdc, user), await balanceOf(A, weth, user)];

    const { result: amountOut } = await swap(A, usdc, amountIn, "exactInputSingle", {
      tokenIn: usdc,
      tokenOut: weth,
      fee: 500,
      amountIn,
      amountOutMinimum: 0n,
      sqrtPriceLimitX96: 0n,
    });
    // 1 ETH less the 0.05 % fee and ~0.2 % price impact on a 1.5M USDC pool.
    expect(amountOut).toBeGreaterThan(parseUnits("0.997", 18));
    expect(amountOut).toBeLessThan(parseUnits("0.9995", 18));
    expectClose(amountOut, constantProductOut(reserveUsdc, reserveWeth, amountIn, 500), "amountOut");
    expect(await balanceOf(A, usdc, user)).toBe(usdcBefore - amountIn);
    expect(await balanceOf(A, weth, user)).toBe(wethBefore + amountOut);
  });

  it("swaps two hops with exactInput: USDT → USDC (fee 100) → WETH (fee 500)", async () => {
    const c = devnet().chain(B);
    const usdt = manifestToken(c, "USDT").address;
    const usdc = manifestToken(c, "USDC").address;
    const weth = manifestToken(c, "WETH").address;
    const amountIn = parseUnits("3000", 6);
    const stable = poolNamed(B, "USDT/USDC").pool;
    const eth = poolNamed(B, "USDC/WETH").pool;
    const usdcOut = constantProductOut(
      await balanceOf(B, usdt, stable),
      await balanceOf(B, usdc, stable),
      amountIn,
      100,
    );
    const expected = constantProductOut(await balanceOf(B, usdc, eth), await balanceOf(B, weth, eth), usdcOut, 500);
    const user = devnet().accounts.users[0]?.address as Address;
    const [usdtBefore, wethBefore] = [await balanceOf(B, usdt, user), await balanceOf(B, weth, user)];

    const { result: amountOut } = await swap(B, usdt, amountIn, "exactInput", {
      path: encodeV3Path([usdt, usdc, weth], [100, 500]),
      amountIn,
      amountOutMinimum: 0n,
    });
    // ~1 ETH less both fees and the price impact of both pools (full range: constant-product impact).
    expect(amountOut).toBeGreaterThan(parseUnits("0.995", 18));
    expect(amountOut).toBeLessThan(parseUnits("0.998", 18));
    expectClose(amountOut, expected, "amountOut");
    expect(await balanceOf(B, usdt, user)).toBe(usdtBefore - amountIn);
    expect(await balanceOf(B, weth, user)).toBe(wethBefore + amountOut);
  });

  it("buys exactly 1 WETH for USDC with exactOutputSingle", async () => {
    const c = devnet().chain(A);
    const usdc = manifestToken(c, "USDC").address;
    const weth = manifestToken(c, "WETH").address;
    const pool = poolNamed(A, "USDC/WETH");
    const amountOut = parseUnits("1", 18);
    const reserveUsdc = await balanceOf(A, usdc, pool.pool);
    const reserveWeth = await balanceOf(A, weth, pool.pool);
    const user = devnet().accounts.users[0]?.address as Address;
    const [usdcBefore, wethBefore] = [await balanceOf(A, usdc, user), await balanceOf(A, weth, user)];
    const amountInMaximum = parseUnits("3100", 6);

    const { result: amountIn } = await swap(A, usdc, amountInMaximum, "exactOutputSingle", {
      tokenIn: usdc,
      tokenOut: weth,
      fee: 500,
      amountOut,
      amountInMaximum,
      sqrtPriceLimitX96: 0n,
    });
    // Constant product: in = R_in·out / ((R_out − out)·(1 − fee)).
    const expected = (reserveUsdc * amountOut * 1_000_000n) / ((reserveWeth - amountOut) * 999_500n);
    expectClose(amountIn, expected, "amountIn");
    expect(amountIn).toBeGreaterThan(parseUnits("3000", 6));
    expect(amountIn).toBeLessThan(parseUnits("3010", 6));
    expect(await balanceOf(A, usdc, user)).toBe(usdcBefore - amountIn);
    expect(await balanceOf(A, weth, user)).toBe(wethBefore + amountOut);
  });
});
