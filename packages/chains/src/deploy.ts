import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  getCreate2Address,
  type Hex,
  keccak256,
  maxUint256,
  parseEther,
  parseUnits,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { DevnetAccount, DevnetAccounts } from "./accounts.ts";
import { type ArtifactName, loadArtifact } from "./artifacts.ts";
import {
  encodeSqrtPriceX96,
  fullRangeTicks,
  sortTokens,
  V3_POOL_INIT_CODE_HASH,
  v3PoolAddress,
  v3PoolArtifactHash,
} from "./uniswapV3.ts";

/** Addresses of every contract the devnet deploys (identical on every devnet chain). */
export interface DevnetContracts {
  /** Wrapped native token (WETH9); the SpokePool's wrappedNativeToken. */
  weth9: Address;
  /** `Ethereum_SpokePool` behind an `ERC1967Proxy`: the address users and relayers call. */
  spokePool: Address;
  spokePoolImplementation: Address;
  multicall3: Address;
  multicallHandler: Address;
  /** Across' `MockPermit2` (the Permit2 interface; the canonical Permit2 bytecode is not published on npm). */
  permit2: Address;
  spokePoolPeriphery: Address;
  /** Created by the SpokePoolPeriphery constructor; swaps run through it. */
  swapProxy: Address;
  counterfactualBeaconBootstrap: Address;
  /** The counterfactual registry/beacon (UUPS proxy, upgraded to `counterfactualBeaconImplementation`). */
  counterfactualBeacon: Address;
  counterfactualBeaconImplementation: Address;
  /** Implementation every counterfactual deposit clone (BeaconProxy) runs. */
  counterfactualDeposit: Address;
  counterfactualDepositFactory: Address;
  /** Leaf implementation: deposit into the SpokePool. */
  counterfactualDepositSpokePool: Address;
  /** Leaf implementation: withdraw funds from a clone. */
  withdrawImplementation: Address;
  adminWithdrawManager: Address;
  /** HubPool (with its LP token factory): the LP pools whose utilization prices the LP fee of a quote. */
  hubPool: Address;
  lpTokenFactory: Address;
  /** AcrossConfigStore: each token's rate model (`l1TokenConfig`), read for the LP fee. */
  configStore: Address;
  uniswapV2Factory: Address;
  uniswapV2Router02: Address;
  /** `UniswapV3Factory` (owner: admin; fee tiers 100, 500, 3000, 10000). */
  uniswapV3Factory: Address;
  /** Uniswap V3 `SwapRouter(factory, WETH9)`: exactInput(Single) / exactOutput(Single). */
  uniswapV3SwapRouter: Address;
  /** `NonfungiblePositionManager(factory, WETH9, tokenDescriptor 0x0)`: no `tokenURI`, everything else. */
  uniswapV3PositionManager: Address;
  /**
   * UMA's `Timer`: the HubPool's clock (`Testable.getCurrentTime`). Anyone may set it; on the devnet the
   * dataworker moves it past a proposal's liveness so that a refund takes a minute, not ten.
   */
  timer: Address;
  /** Stand-in for UMA's Finder: answers every lookup with {@link umaStore} (UMA is not deployed). */
  umaFinder: Address;
  /** Stand-in for UMA's collateral whitelist and Store: every token is whitelisted, every final fee is 1 wei. */
  umaStore: Address;
  /** Across' `BondToken` (ABT): WETH that only whitelisted proposers can bond; the admin is one. */
  bondToken: Address;
  /** `Mock_Adapter`: the HubPool's adapter for every chain; it locks tokens in {@link mockBridge} and emits events. */
  mockAdapter: Address;
  mockBridge: Address;
}

/** The bond of a root bundle proposal (the documented mainnet bond, 0.45 ABT); the Store adds a 1 wei final fee. */
export const DEVNET_BOND = parseEther("0.45");
const DEVNET_BOND_FUNDS = parseEther("100");
/** `HubPool.setLiveness` requires more than ten minutes. */
export const HUB_POOL_MIN_LIVENESS = 601;

/**
 * Runtime of a contract that answers every call with the 32-byte word `word`:
 * PUSH32 word, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN (41 bytes), behind an 11-byte constructor that
 * copies it out (PUSH1 41, DUP1, PUSH1 11, PUSH1 0, CODECOPY, PUSH1 0, RETURN).
 */
function constantWordContract(word: Hex): Hex {
  const w = word.slice(2).padStart(64, "0");
  return `0x602980600b6000396000f37f${w}60005260206000f3`;
}

/**
 * UMA's side of the HubPool, which the devnet does not deploy: its Timer, and two constant-word contracts the
 * HubPool asks only in `setBond` (Finder → collateral whitelist and Store). Disputes, the only other use of
 * the Finder, are out (the proposer is a trusted operator). They come from the `signer` account, which sends
 * nothing else in the template, so that they exist before the HubPool and no admin address moves.
 */
function planUmaStandIns(
  deployer: DevnetAccount,
  txs: PlannedTx[],
  next: (from: DevnetAccount) => number,
): { timer: Address; store: Address; finder: Address } {
  const create = (label: string, data: Hex): Address => {
    const nonce = next(deployer);
    txs.push({ label, from: deployer, nonce, data, gas: DEPLOY_GAS });
    return getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
  };
  const timer = create("UMA Timer", deploy("Timer"));
  // isOnWhitelist → true, computeFinalFee → 1 wei (a FixedPoint.Unsigned of 1).
  const store = create("UMA whitelist/Store stand-in", constantWordContract("0x01"));
  const finder = create("UMA Finder stand-in", constantWordContract(store));
  return { timer, store, finder };
}

/** An ERC-20 on the devnet. */
export interface DevnetToken {
  symbol: string;
  name: string;
  decimals: number;
  address: Address;
}

/** A Uniswap V2 pool seeded on every devnet chain. */
export interface DevnetPool {
  pair: Address;
  token0: Address;
  token1: Address;
  /** e.g. "USDC/WETH" (as listed, not sorted). */
  name: string;
}

/** A Uniswap V3 pool seeded on every devnet chain (full-range liquidity owned by the admin). */
export interface DevnetV3Pool {
  pool: Address;
  token0: Address;
  token1: Address;
  /** Fee tier in hundredths of a bip (500 = 0.05 %), as `factory.getPool(token0, token1, fee)` takes it. */
  fee: number;
  tickSpacing: number;
  /** e.g. "USDC/WETH" (as listed, not sorted). */
  name: string;
}

/** One transaction of a deployment plan, fully determined before anything is sent. */
export interface PlannedTx {
  label: string;
  from: DevnetAccount;
  nonce: number;
  to?: Address;
  data: Hex;
  value?: bigint;
  gas: bigint;
}

// SpokePool buffers the issue asks for (and Across mainnet uses): 1 h quote window, 6 h fill deadline window.
export const DEPOSIT_QUOTE_TIME_BUFFER = 3600;
/**
 * First deposit id of every devnet SpokePool. Live SpokePools are far past 0, and clients rely on it:
 * app-sdk 0.4.4's `waitForDepositTx` treats a deposit id of 0 as "no deposit log" (`!depositId`).
 */
export const INITIAL_DEPOSIT_ID = 1_000_000;
export const FILL_DEADLINE_BUFFER = 21600;
// Across' sentinel for "native coin" in counterfactual routes.
const NATIVE_ASSET: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";

const ERC20_SPECS = [
  { symbol: "USDC", name: "USD Coin", decimals: 6 },
  { symbol: "USDT", name: "Tether USD", decimals: 6 },
  { symbol: "DAI", name: "Dai Stablecoin", decimals: 18 },
  { symbol: "WBTC", name: "Wrapped BTC", decimals: 8 },
] as const;
type Erc20Symbol = (typeof ERC20_SPECS)[number]["symbol"];

// Token amounts in whole units. Pools are priced like mainnet: 1 ETH = 3000 USDC, 1 BTC = 30 ETH.
// The admin's covers the HubPool, the Uniswap V3 pools (template) and the V2 pools (per chain) with room to spare.
const MINT: Record<"admin" | "relayer" | "user", Record<Erc20Symbol, string>> = {
  admin: { USDC: "30000000", USDT: "15000000", DAI: "12000000", WBTC: "1000" },
  relayer: { USDC: "5000000", USDT: "5000000", DAI: "5000000", WBTC: "100" },
  user: { USDC: "100000", USDT: "100000", DAI: "100000", WBTC: "10" },
};
const WRAP_ETH = { relayer: parseEther("1000"), user: parseEther("100") };
const POOLS = [
  { name: "USDC/WETH", a: "USDC", b: "WETH", amountA: "3000000", amountB: "1000" },
  { name: "USDT/USDC", a: "USDT", b: "USDC", amountA: "1000000", amountB: "1000000" },
  { name: "DAI/USDC", a: "DAI", b: "USDC", amountA: "1000000", amountB: "1000000" },
  { name: "WBTC/WETH", a: "WBTC", b: "WETH", amountA: "20", amountB: "600" },
] as const;
/**
 * Uniswap V3 pools, at the V2 pools' prices, with full-range liquidity (so they quote like a V2 pool of the
 * same depth, at a lower fee). Fee tier 100 (tick spacing 1) is not in v3-core 1.0's factory: enabled below.
 */
const V3_POOLS = [
  { name: "USDC/WETH", a: "USDC", b: "WETH", fee: 500, amountA: "1500000", amountB: "500" },
  { name: "USDT/USDC", a: "USDT", b: "USDC", fee: 100, amountA: "2000000", amountB: "2000000" },
  { name: "DAI/USDC", a: "DAI", b: "USDC", fee: 100, amountA: "500000", amountB: "500000" },
  { name: "WBTC/WETH", a: "WBTC", b: "WETH", fee: 3000, amountA: "10", amountB: "300" },
] as const;
/** Tick spacing of each V3 fee tier: v3-core's defaults (500, 3000, 10000) plus the one enabled here (100). */
const V3_TICK_SPACING: Record<number, number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };
const V3_EXTRA_FEE_TIER = { fee: 100, tickSpacing: 1 } as const;

/**
 * HubPool liquidity the admin provides per token (whole units; WETH as ETH): at least the relayer's
 * balances, so the pool does not cap the limits below what the relayer can fill.
 */
const HUB_LIQUIDITY: Record<Erc20Symbol | "WETH", string> = {
  USDC: "10000000",
  USDT: "8000000",
  DAI: "8000000",
  WBTC: "500",
  WETH: "3000",
};
/**
 * Rate model of every token in the config store: the anchor's README example (UBar 65 %, R0 0, R1 8 %,
 * R2 100 %), so the LP fee grows with the share of the pool a deposit uses.
 */
export const DEVNET_RATE_MODEL = {
  UBar: "650000000000000000",
  R0: "0",
  R1: "80000000000000000",
  R2: "1000000000000000000",
} as const;

const DEPLOY_GAS = 12_000_000n;
const CALL_GAS = 600_000n;
const V3_MINT_GAS = 1_000_000n;

function deploy(name: ArtifactName, args: readonly unknown[] = []): Hex {
  const { abi, bytecode } = loadArtifact(name);
  return encodeDeployData({ abi, bytecode, args });
}

function call(name: ArtifactName, functionName: string, args: readonly unknown[] = []): Hex {
  return encodeFunctionData({ abi: loadArtifact(name).abi, functionName, args });
}

/** The deterministic deployment: contract addresses, tokens and the transactions that create them. */
export interface DeploymentPlan {
  contracts: DevnetContracts;
  tokens: DevnetToken[];
  /** Transactions run once on the template chain (everything that does not depend on the chain id). */
  templateTxs: PlannedTx[];
}

/**
 * Plans the deployment from the fixed deployer key: every address follows from (deployer, nonce), so it is
 * the same on every chain and every run. Order matters; changing it moves addresses (and the template
 * cache key, which hashes this file).
 */
export function planDeployment(accounts: DevnetAccounts): DeploymentPlan {
  const admin = accounts.admin;
  const txs: PlannedTx[] = [];
  const nonces = new Map<Address, number>();
  const next = (from: DevnetAccount): number => {
    const n = nonces.get(from.address) ?? 0;
    nonces.set(from.address, n + 1);
    return n;
  };
  const create = (label: string, data: Hex): Address => {
    const nonce = next(admin);
    txs.push({ label, from: admin, nonce, data, gas: DEPLOY_GAS });
    return getContractAddress({ from: admin.address, nonce: BigInt(nonce) });
  };
  const send = (label: string, from: DevnetAccount, to: Address, data: Hex, value?: bigint, gas = CALL_GAS): void => {
    txs.push({ label, from, nonce: next(from), to, data, value, gas });
  };

  const weth9 = create("WETH9", deploy("WETH9"));
  const tokenAddr = {} as Record<Erc20Symbol, Address>;
  for (const t of ERC20_SPECS) {
    tokenAddr[t.symbol] = create(t.symbol, deploy("ExpandedERC20", [t.name, t.symbol, t.decimals]));
  }

  const spokePoolImplementation = create(
    "Ethereum_SpokePool implementation",
    deploy("Ethereum_SpokePool", [weth9, DEPOSIT_QUOTE_TIME_BUFFER, FILL_DEADLINE_BUFFER, zeroAddress]),
  );
  // The implementation disables initializers; the proxy runs initialize(INITIAL_DEPOSIT_ID, withdrawalRecipient
  // admin) in its constructor, making the admin (msg.sender) the owner.
  const spokePool = create(
    "SpokePool proxy",
    deploy("ERC1967Proxy", [
      spokePoolImplementation,
      call("Ethereum_SpokePool", "initialize", [INITIAL_DEPOSIT_ID, admin.address]),
    ]),
  );
  const multicall3 = create("Multicall3", deploy("Multicall3"));
  const multicallHandler = create("MulticallHandler", deploy("MulticallHandler"));
  const permit2 = create("Permit2 (MockPermit2)", deploy("MockPermit2"));
  const spokePoolPeriphery = create("SpokePoolPeriphery", deploy("SpokePoolPeriphery", [permit2, multicall3]));
  const swapProxy = getContractAddress({ from: spokePoolPeriphery, nonce: 1n });

  // Counterfactual deposits: a UUPS registry/beacon created against a chain-neutral bootstrap, upgraded to
  // the configured beacon, whose implementation is CounterfactualDeposit; clones come from the factory.
  const counterfactualBeaconBootstrap = create(
    "CounterfactualBeaconBootstrap",
    deploy("CounterfactualBeaconBootstrap"),
  );
  const counterfactualBeacon = create(
    "CounterfactualBeacon proxy",
    deploy("ERC1967Proxy", [
      counterfactualBeaconBootstrap,
      call("CounterfactualBeaconBootstrap", "initialize", [admin.address]),
    ]),
  );
  const usdc = tokenAddr.USDC;
  const counterfactualBeaconImplementation = create(
    "CounterfactualBeacon implementation",
    deploy("CounterfactualBeacon", [
      {
        signer: accounts.signer.address,
        spokePool,
        wrappedNativeToken: weth9,
        nativeToken: NATIVE_ASSET,
        cctpSrcPeriphery: zeroAddress,
        cctpTokenMessenger: zeroAddress,
        cctpSourceDomain: 0,
        oftSrcPeriphery: zeroAddress,
        oftSrcEid: 0,
        usdc,
        usdce: zeroAddress,
        usdt: tokenAddr.USDT,
        wbtc: tokenAddr.WBTC,
        weth: weth9,
        usdcCctpMaxExecutionFee: 0n,
        usdcCctpMaxFeeBps: 0n,
        usdtOftMaxExecutionFee: 0n,
        // Fixed part of the fee cap per input token (a few dollars), as a production config would set.
        usdcSpokePoolMaxExecutionFee: parseUnits("5", 6),
        usdceSpokePoolMaxExecutionFee: 0n,
        usdtSpokePoolMaxExecutionFee: parseUnits("5", 6),
        wethSpokePoolMaxExecutionFee: parseEther("0.002"),
        wbtcSpokePoolMaxExecutionFee: parseUnits("0.0001", 8),
      },
    ]),
  );
  send(
    "CounterfactualBeacon upgradeToAndCall",
    admin,
    counterfactualBeacon,
    call("CounterfactualBeacon", "upgradeToAndCall", [counterfactualBeaconImplementation, "0x"]),
  );
  const counterfactualDeposit = create(
    "CounterfactualDeposit",
    deploy("CounterfactualDeposit", [counterfactualBeacon]),
  );
  send(
    "CounterfactualBeacon setImplementation",
    admin,
    counterfactualBeacon,
    call("CounterfactualBeacon", "setImplementation", [counterfactualDeposit]),
  );
  const counterfactualDepositFactory = create(
    "CounterfactualDepositFactory",
    deploy("CounterfactualDepositFactory", [counterfactualBeacon]),
  );
  const counterfactualDepositSpokePool = create(
    "CounterfactualDepositSpokePool",
    deploy("CounterfactualDepositSpokePool"),
  );
  const withdrawImplementation = create("WithdrawImplementation", deploy("WithdrawImplementation"));
  const adminWithdrawManager = create(
    "AdminWithdrawManager",
    deploy("AdminWithdrawManager", [admin.address, admin.address, accounts.signer.address]),
  );

  const uniswapV2Factory = create("UniswapV2Factory", deploy("UniswapV2Factory", [admin.address]));
  const uniswapV2Router02 = create("UniswapV2Router02", deploy("UniswapV2Router02", [uniswapV2Factory, weth9]));

  // Funding: the admin mints test tokens (it must first grant itself the Minter role of ExpandedERC20).
  const holders: [DevnetAccount, keyof typeof MINT][] = [
    [admin, "admin"],
    [accounts.relayer, "relayer"],
    ...accounts.users.map((u): [DevnetAccount, "user"] => [u, "user"]),
  ];
  for (const t of ERC20_SPECS) {
    const token = tokenAddr[t.symbol];
    send(`${t.symbol} addMinter`, admin, token, call("ExpandedERC20", "addMinter", [admin.address]));
    for (const [who, kind] of holders) {
      const amount = parseUnits(MINT[kind][t.symbol], t.decimals);
      send(`${t.symbol} mint ${who.name}`, admin, token, call("ExpandedERC20", "mint", [who.address, amount]));
    }
    // The admin seeds the AMM pools on each chain; approve the router once here.
    send(`${t.symbol} approve router`, admin, token, call("ExpandedERC20", "approve", [uniswapV2Router02, maxUint256]));
  }
  for (const [who, kind] of holders) {
    if (kind === "admin") continue;
    send(`WETH deposit ${who.name}`, who, weth9, call("WETH9", "deposit"), WRAP_ETH[kind]);
  }

  // The HubPool side of Across: LP pools for every token and their rate models. Deployed on every chain
  // like the rest of the template; the crosschain service uses the hub chain's (chain 1 when present).
  const lpTokenFactory = create("LpTokenFactory", deploy("LpTokenFactory"));
  const uma = planUmaStandIns(accounts.signer, txs, next);
  const hubPool = create("HubPool", deploy("HubPool", [lpTokenFactory, uma.finder, weth9, uma.timer]));
  const configStore = create("AcrossConfigStore", deploy("AcrossConfigStore"));
  const rateConfig = JSON.stringify({ rateModel: DEVNET_RATE_MODEL });
  for (const t of [
    { symbol: "WETH" as const, decimals: 18, address: weth9 },
    ...ERC20_SPECS.map((x) => ({ ...x, address: tokenAddr[x.symbol] })),
  ]) {
    // Enabling a token creates its LP token (a contract deployment).
    send(
      `HubPool enable ${t.symbol}`,
      admin,
      hubPool,
      call("HubPool", "enableL1TokenForLiquidityProvision", [t.address]),
      undefined,
      DEPLOY_GAS,
    );
    send(
      `ConfigStore ${t.symbol}`,
      admin,
      configStore,
      call("AcrossConfigStore", "updateTokenConfig", [t.address, rateConfig]),
    );
    const amount = parseUnits(HUB_LIQUIDITY[t.symbol], t.decimals);
    if (t.symbol === "WETH") {
      send("HubPool addLiquidity WETH", admin, hubPool, call("HubPool", "addLiquidity", [weth9, amount]), amount);
    } else {
      send(`${t.symbol} approve HubPool`, admin, t.address, call("ExpandedERC20", "approve", [hubPool, amount]));
      send(`HubPool addLiquidity ${t.symbol}`, admin, hubPool, call("HubPool", "addLiquidity", [t.address, amount]));
    }
  }

  const tokens: DevnetToken[] = [
    { symbol: "WETH", name: "Wrapped Ether", decimals: 18, address: weth9 },
    ...ERC20_SPECS.map((t) => ({ symbol: t.symbol, name: t.name, decimals: t.decimals, address: tokenAddr[t.symbol] })),
  ];

  // Uniswap V3, last so that every address above stays where it was before V3 was added. Pools live in the
  // template: unlike a UniswapV2Pair, a UniswapV3Pool keeps nothing chain-specific, and the position
  // manager's ERC721Permit computes its domain separator from block.chainid on every call.
  const poolInitCodeHash = v3PoolArtifactHash();
  if (poolInitCodeHash !== V3_POOL_INIT_CODE_HASH) {
    throw new Error(
      `@uniswap/v3-core's UniswapV3Pool creation code hashes to ${poolInitCodeHash}, not v3-periphery's ` +
        `POOL_INIT_CODE_HASH ${V3_POOL_INIT_CODE_HASH}: the router would not find the pools`,
    );
  }
  const uniswapV3Factory = create("UniswapV3Factory", deploy("UniswapV3Factory"));
  send(
    `UniswapV3Factory enableFeeAmount ${V3_EXTRA_FEE_TIER.fee}`,
    admin,
    uniswapV3Factory,
    call("UniswapV3Factory", "enableFeeAmount", [V3_EXTRA_FEE_TIER.fee, V3_EXTRA_FEE_TIER.tickSpacing]),
  );
  const uniswapV3SwapRouter = create("SwapRouter", deploy("SwapRouter", [uniswapV3Factory, weth9]));
  const uniswapV3PositionManager = create(
    "NonfungiblePositionManager",
    deploy("NonfungiblePositionManager", [uniswapV3Factory, weth9, zeroAddress]),
  );
  const v3Mints = V3_POOLS.map((p) => v3PoolMint(p, tokens));
  const v3Weth = v3Mints.reduce((sum, m) => sum + m.wethAmount, 0n);
  send("WETH deposit admin (V3 pools)", admin, weth9, call("WETH9", "deposit"), v3Weth);
  for (const t of tokens) {
    send(
      `${t.symbol} approve V3 position manager`,
      admin,
      t.address,
      call("ExpandedERC20", "approve", [uniswapV3PositionManager, maxUint256]),
    );
  }
  for (const m of v3Mints) {
    send(
      `V3 pool ${m.name} create`,
      admin,
      uniswapV3PositionManager,
      call("NonfungiblePositionManager", "createAndInitializePoolIfNecessary", [
        m.token0,
        m.token1,
        m.fee,
        m.sqrtPriceX96,
      ]),
      undefined,
      DEPLOY_GAS,
    );
    send(
      `V3 pool ${m.name} mint full range`,
      admin,
      uniswapV3PositionManager,
      call("NonfungiblePositionManager", "mint", [
        {
          token0: m.token0,
          token1: m.token1,
          fee: m.fee,
          tickLower: m.tickLower,
          tickUpper: m.tickUpper,
          amount0Desired: m.amount0,
          amount1Desired: m.amount1,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: admin.address,
          deadline: maxUint256,
        },
      ]),
      undefined,
      V3_MINT_GAS,
    );
  }
  // Settlement, appended so that no address above moves: the bond token (only whitelisted proposers can
  // post it: the admin is the trusted proposer), the adapter every chain's rebalances go through, the bond
  // and the shortest liveness the HubPool accepts (the dataworker advances the Timer on the devnet).
  const bondToken = create("BondToken", deploy("BondToken", [hubPool]));
  const mockAdapter = create("Mock_Adapter", deploy("Mock_Adapter"));
  const mockBridge = getContractAddress({ from: mockAdapter, nonce: 1n });
  send("BondToken setProposer admin", admin, bondToken, call("BondToken", "setProposer", [admin.address, true]));
  send("BondToken deposit admin", admin, bondToken, call("BondToken", "deposit"), DEVNET_BOND_FUNDS);
  send("BondToken approve HubPool", admin, bondToken, call("BondToken", "approve", [hubPool, maxUint256]));
  send("HubPool setBond", admin, hubPool, call("HubPool", "setBond", [bondToken, DEVNET_BOND]));
  send("HubPool setLiveness", admin, hubPool, call("HubPool", "setLiveness", [HUB_POOL_MIN_LIVENESS]));

  const contracts: DevnetContracts = {
    weth9,
    spokePool,
    spokePoolImplementation,
    multicall3,
    multicallHandler,
    permit2,
    spokePoolPeriphery,
    swapProxy,
    counterfactualBeaconBootstrap,
    counterfactualBeacon,
    counterfactualBeaconImplementation,
    counterfactualDeposit,
    counterfactualDepositFactory,
    counterfactualDepositSpokePool,
    withdrawImplementation,
    adminWithdrawManager,
    hubPool,
    lpTokenFactory,
    configStore,
    uniswapV2Factory,
    uniswapV2Router02,
    uniswapV3Factory,
    uniswapV3SwapRouter,
    uniswapV3PositionManager,
    timer: uma.timer,
    umaFinder: uma.finder,
    umaStore: uma.store,
    bondToken,
    mockAdapter,
    mockBridge,
  };
  return { contracts, tokens, templateTxs: txs };
}

/** The Uniswap V2 pair address of two tokens (CREATE2 from the factory: the same on every chain). */
export function pairAddress(factory: Address, tokenA: Address, tokenB: Address): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  return getCreate2Address({
    from: factory,
    salt: keccak256(encodePacked(["address", "address"], [token0, token1])),
    bytecodeHash: keccak256(loadArtifact("UniswapV2Pair").bytecode),
  });
}

/** The pools seeded on every chain. */
export function plannedPools(plan: Pick<DeploymentPlan, "contracts" | "tokens">): DevnetPool[] {
  const bySymbol = (s: string): Address => {
    const t = plan.tokens.find((x) => x.symbol === s);
    if (!t) throw new Error(`unknown token ${s}`);
    return t.address;
  };
  return POOLS.map((p) => {
    const [token0, token1] = sortTokens(bySymbol(p.a), bySymbol(p.b));
    return { name: p.name, pair: pairAddress(plan.contracts.uniswapV2Factory, token0, token1), token0, token1 };
  });
}

/** What minting one V3 pool's full-range position takes: pool order, raw amounts, price and ticks. */
interface V3PoolMint {
  name: string;
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
  tickLower: number;
  tickUpper: number;
  amount0: bigint;
  amount1: bigint;
  sqrtPriceX96: bigint;
  /** The WETH the position takes (0 when neither token is WETH). */
  wethAmount: bigint;
}

function v3PoolMint(p: (typeof V3_POOLS)[number], tokens: DevnetToken[]): V3PoolMint {
  const token = (s: string): DevnetToken => {
    const t = tokens.find((x) => x.symbol === s);
    if (!t) throw new Error(`unknown token ${s}`);
    return t;
  };
  const a = { token: token(p.a), amount: parseUnits(p.amountA, token(p.a).decimals) };
  const b = { token: token(p.b), amount: parseUnits(p.amountB, token(p.b).decimals) };
  const [x0, x1] = BigInt(a.token.address) < BigInt(b.token.address) ? [a, b] : [b, a];
  const tickSpacing = V3_TICK_SPACING[p.fee];
  if (tickSpacing === undefined) throw new Error(`no tick spacing for fee ${p.fee}`);
  return {
    name: p.name,
    token0: x0.token.address,
    token1: x1.token.address,
    fee: p.fee,
    tickSpacing,
    ...fullRangeTicks(tickSpacing),
    amount0: x0.amount,
    amount1: x1.amount,
    // The price is the ratio of the amounts deposited, in raw units (decimals included): token1 per token0.
    sqrtPriceX96: encodeSqrtPriceX96(x1.amount, x0.amount),
    wethAmount: [a, b].find((x) => x.token.symbol === "WETH")?.amount ?? 0n,
  };
}

/** The Uniswap V3 pools of the deployment (in the template: the same state on every chain). */
export function plannedV3Pools(plan: Pick<DeploymentPlan, "contracts" | "tokens">): DevnetV3Pool[] {
  return V3_POOLS.map((p) => {
    const m = v3PoolMint(p, plan.tokens);
    return {
      name: m.name,
      pool: v3PoolAddress(plan.contracts.uniswapV3Factory, m.token0, m.token1, m.fee),
      token0: m.token0,
      token1: m.token1,
      fee: m.fee,
      tickSpacing: m.tickSpacing,
    };
  });
}

/**
 * Per-chain transactions, run on each chain after the template state is loaded: creating the pools and
 * adding liquidity. They cannot be in the template because a UniswapV2Pair stores an EIP-712 domain
 * separator computed from the chain id in its constructor.
 */
export function planPoolSeeding(
  plan: Pick<DeploymentPlan, "contracts" | "tokens">,
  admin: DevnetAccount,
  adminNonce: number,
): PlannedTx[] {
  const token = (s: string): DevnetToken => {
    const t = plan.tokens.find((x) => x.symbol === s);
    if (!t) throw new Error(`unknown token ${s}`);
    return t;
  };
  const router = plan.contracts.uniswapV2Router02;
  let nonce = adminNonce;
  return POOLS.map((p) => {
    const a = token(p.a);
    const amountA = parseUnits(p.amountA, a.decimals);
    // Pools against WETH take native ETH through addLiquidityETH (the router wraps it).
    const data =
      p.b === "WETH"
        ? call("UniswapV2Router02", "addLiquidityETH", [a.address, amountA, 0n, 0n, admin.address, maxUint256])
        : call("UniswapV2Router02", "addLiquidity", [
            a.address,
            token(p.b).address,
            amountA,
            parseUnits(p.amountB, token(p.b).decimals),
            0n,
            0n,
            admin.address,
            maxUint256,
          ]);
    const value = p.b === "WETH" ? parseEther(p.amountB) : undefined;
    return { label: `pool ${p.name}`, from: admin, nonce: nonce++, to: router, data, value, gas: 6_000_000n };
  });
}

/** A minimal JSON-RPC caller (the devnet talks to anvil directly; viem clients are for consumers). */
export type Rpc = <T = unknown>(method: string, params?: unknown[]) => Promise<T>;

/** JSON-RPC over HTTP to `url`. */
export function httpRpc(url: string): Rpc {
  let id = 0;
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string; data?: unknown } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
}

interface Receipt {
  status: Hex;
  transactionHash: Hex;
  contractAddress: Address | null;
}

/**
 * Signs and sends planned transactions (explicit nonces, gas and fees: no estimation round trips), then
 * checks every receipt. Transactions are sent one after another so that each sender's nonces arrive in
 * order; with automine each is mined on arrival.
 */
export async function executeTxs(rpc: Rpc, chainId: number, txs: PlannedTx[]): Promise<void> {
  const signers = new Map<Address, ReturnType<typeof privateKeyToAccount>>();
  const hashes: Hex[] = [];
  for (const tx of txs) {
    let signer = signers.get(tx.from.address);
    if (!signer) {
      signer = privateKeyToAccount(tx.from.privateKey);
      signers.set(tx.from.address, signer);
    }
    const raw = await signer.signTransaction({
      type: "eip1559",
      chainId,
      nonce: tx.nonce,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    hashes.push(await rpc<Hex>("eth_sendRawTransaction", [raw]));
  }
  for (const [i, hash] of hashes.entries()) {
    let receipt = await rpc<Receipt | null>("eth_getTransactionReceipt", [hash]);
    for (let tries = 0; !receipt && tries < 200; tries++) {
      await new Promise((r) => setTimeout(r, 10));
      receipt = await rpc<Receipt | null>("eth_getTransactionReceipt", [hash]);
    }
    if (!receipt) throw new Error(`transaction not mined: ${txs[i]?.label} (${hash})`);
    if (receipt.status !== "0x1") throw new Error(`transaction reverted: ${txs[i]?.label} (${hash})`);
  }
}
