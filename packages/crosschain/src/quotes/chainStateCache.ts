/**
 * Chain state kept warm in the background, so that a quote does no RPC on its hot path.
 *
 * Per chain, every `refreshIntervalMs` (default 1.5 s) and on demand:
 * - the latest block (number, timestamp, base fee) and the fill gas price: `baseFee × 1.5 + eth_maxPriorityFeePerGas`
 *   (the anchor's default markups), or `eth_gasPrice` on chains without a base fee;
 * - the relayer's balance of every token (and of the native coin), in one Multicall3 call together with
 * - the AMM pools between the chain's tokens (Uniswap V2 pairs and V3 pools, found once: `ammPools.ts`), which
 *   the swap router routes over and from which the token prices are derived (see `prices.ts`);
 * - on the hub chain, the HubPool's pools and the config store's rate models (`hubPool.ts`);
 * - a `fillRelay` gas estimate per output token: `eth_estimateGas` of a small (100 unit) fill from the relayer,
 *   as the anchor simulates it, refreshed every `gasEstimateTtlMs`. When the relayer has not approved the
 *   SpokePool yet, the simulation overrides its allowance (slot found by probing with `eth_call` state
 *   overrides); when no simulation works, `fallbackFillGas` is used and marked `source: "fallback"`.
 *
 * A failed refresh keeps the previous state of that chain (and records `lastError`). `snapshot()` never
 * waits: it returns the current immutable state and, when the loop is not running and the state is older than
 * the interval, starts a background refresh. Two on-demand helpers exist for the rare requests that need the
 * chain (a `message` quote): `isContract` (cached `eth_getCode`) and `estimateFillGas` (cached simulation).
 */
import { createChainClient, loadArtifact } from "@platform/chains";
import type { Logger } from "@platform/kernel";
import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  maxUint256,
  type PublicClient,
  pad,
  parseAbi,
  toHex,
  zeroAddress,
} from "viem";
import type { SpokeChain } from "../deployments.ts";
import { createPoolIndex, type PoolIndex } from "../domain/swap/swapRouter.ts";
import { discoverPools, type PoolRef, poolReadCalls, poolsFrom } from "./ammPools.ts";
import { multicallAddressOf, nativeBalanceCall, tokenBalanceCall } from "./balanceCalls.ts";
import type { EnabledRoutes } from "./enabledRoutes.ts";
import { wrappedNativeOf } from "./enabledRoutes.ts";
import { type HubPoolState, hubChainOf, hubPoolCalls, hubPoolStateFrom } from "./hubPool.ts";
import { multicallEachMayFail } from "./multicallReads.ts";
import { type ChainPrices, derivePrices, parseUsdPrice } from "./prices.ts";

/** Recipient of simulated fills without a message (the anchor also simulates to a fixed address). */
const DEFAULT_SIMULATED_RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";
/** Output amount of the simulated fill (the anchor simulates 100 wei). */
const SIMULATED_FILL_AMOUNT = 100n;

export interface FillGasEstimate {
  gasUnits: bigint;
  /** "simulated": eth_estimateGas of fillRelay; "fallback": the configured constant. */
  source: "simulated" | "fallback";
  /** Date.now() of the estimate. */
  updatedAt: number;
}

/** The state of one chain at its last successful refresh (immutable). */
export interface ChainState {
  chainId: number;
  /** Date.now() when this state was read. */
  updatedAt: number;
  blockNumber: bigint;
  blockTimestamp: number;
  baseFeePerGas: bigint | undefined;
  maxPriorityFeePerGas: bigint;
  /** Gas price of a fill, wei per gas. */
  gasPrice: bigint;
  relayerNativeBalance: bigint;
  /** The relayer's ERC-20 balances by lower-case token address (empty without a relayer). */
  relayerBalances: ReadonlyMap<string, bigint>;
  /** `fillRelay` gas per output token (lower-case address). */
  fillGas: ReadonlyMap<string, FillGasEstimate>;
  prices: ChainPrices;
  /** The chain's AMM pools between its tokens with their reserves at `blockNumber` (what swaps are routed over). */
  pools: PoolIndex;
  /** On the hub chain only: the HubPool's pools and rate configs (see hubPool.ts). */
  hubPool?: HubPoolState;
}

export interface ChainStateSnapshot {
  /** Chains that were read successfully at least once. */
  chains: ReadonlyMap<number, ChainState>;
  relayerAddress: Address | undefined;
  /** Last refresh error per chain (cleared by a successful refresh). */
  errors: ReadonlyMap<number, string>;
}

export interface ChainStateCacheOptions {
  chains: readonly SpokeChain[];
  /** Output tokens of these routes get fill gas estimates; default: every token of every chain. */
  routes?: EnabledRoutes;
  /** The relayer whose balances bound the limits and who simulates fills. */
  relayerAddress?: Address;
  /** Default 1500 ms. */
  refreshIntervalMs?: number;
  /** How long a fill gas estimate is reused; default 5 minutes. */
  gasEstimateTtlMs?: number;
  /** Gas units used when no simulation succeeds; default 200,000. */
  fallbackFillGas?: bigint;
  /** Base fee multiplier in basis points; default 15,000 (× 1.5). */
  baseFeeMultiplierBps?: bigint;
  /** USD prices by symbol (`{ "ETH": "3000", "WBTC": 90000 }`); they beat pool prices. */
  usdPrices?: Readonly<Record<string, string | number>>;
  /** Symbols pinned to 1 USD; default USDC, USDT, DAI (+ bridged USDC variants). */
  stablecoins?: readonly string[];
  /** How often to look again for pairs that did not exist; default 5 minutes. */
  pairRediscoveryMs?: number;
  /** Time limit of the on-demand helpers; default 3 s. */
  onDemandTimeoutMs?: number;
  logger?: Logger;
}

export interface ChainStateCache {
  /** The current state; never waits (see the module comment). */
  snapshot(): ChainStateSnapshot;
  /** Refresh every chain now; concurrent calls share one refresh. */
  refresh(): Promise<void>;
  /** True when every chain has state; otherwise waits (at most `timeoutMs`) for a refresh and checks again. */
  ready(timeoutMs?: number): Promise<boolean>;
  /** Start the refresh loop (idempotent). */
  start(): void;
  /** Stop the loop and wait (at most 1 s) for a refresh in flight. */
  stop(): Promise<void>;
  readonly running: boolean;
  /** Whether `address` has code on `chainId`: known contracts answer at once, others are cached `eth_getCode`. */
  isContract(chainId: number, address: string): Promise<boolean>;
  /** Simulated gas of a specific fill (e.g. with a message), cached for a minute. Throws when it reverts. */
  estimateFillGas(params: FillSimulation): Promise<bigint>;
}

export interface FillSimulation {
  destinationChainId: number;
  outputToken: string;
  outputAmount: bigint;
  recipient?: string;
  message?: Hex;
  /** Who sends the fill; default the relayer. */
  relayer?: string;
  /** Origin chain recorded in the simulated relay data. */
  originChainId?: number;
}

const erc20Abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
]);
let spokePoolAbi: readonly unknown[] | undefined;
const spokeAbi = () => {
  spokePoolAbi ??= loadArtifact("Ethereum_SpokePool").abi as readonly unknown[];
  return spokePoolAbi;
};

const lower = (a: string) => a.toLowerCase();
const toBytes32 = (a: string) => pad(lower(a) as Hex, { size: 32 });

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const SLOT_PROBE_COUNT = 16n;
const SLOT_PROBE_MARKER = 0x5a17_0000n;

/** Per-chain machinery: client, discovered pairs, allowance slots. */
interface ChainWorker {
  chain: SpokeChain;
  client: PublicClient;
  multicallAddress: Address;
  /** Token addresses whose fill gas is estimated. */
  outputTokens: string[];
  /** Other chain id used as the simulated origin. */
  simulatedOriginChainId: number;
  knownContracts: Set<string>;
  pairs: PoolRef[];
  pairsCheckedAt: number;
  pairsComplete: boolean;
  /** Allowance storage slot per token (null: not found), for the state override of simulations. */
  allowanceSlots: Map<string, bigint | null>;
}

/** Build the cache (nothing runs until `start()`, `refresh()`, `ready()` or a stale `snapshot()`). */
export function createChainStateCache(options: ChainStateCacheOptions): ChainStateCache {
  const interval = options.refreshIntervalMs ?? 1500;
  const gasTtl = options.gasEstimateTtlMs ?? 300_000;
  const fallbackFillGas = options.fallbackFillGas ?? 200_000n;
  const baseFeeBps = options.baseFeeMultiplierBps ?? 15_000n;
  const rediscoverMs = options.pairRediscoveryMs ?? 300_000;
  const onDemandTimeout = options.onDemandTimeoutMs ?? 3000;
  const relayer = options.relayerAddress ? getAddress(options.relayerAddress) : undefined;
  const usdPrices = new Map(
    Object.entries(options.usdPrices ?? {}).map(([symbol, value]) => [symbol.toUpperCase(), parseUsdPrice(value)]),
  );

  const workers = options.chains.map((chain): ChainWorker => {
    const outputTokens = options.routes
      ? [
          ...new Set(
            options.routes.routes
              .filter((r) => r.destinationChainId === chain.chainId)
              .map((r) => lower(r.destinationToken)),
          ),
        ]
      : chain.tokens.map((t) => lower(t.address));
    return {
      chain,
      client: createChainClient(chain),
      multicallAddress: multicallAddressOf(chain),
      outputTokens,
      simulatedOriginChainId: options.chains.find((c) => c.chainId !== chain.chainId)?.chainId ?? 1,
      knownContracts: new Set(
        [chain.spokePool, ...Object.values(chain.contracts), ...chain.tokens.map((t) => t.address)].map(lower),
      ),
      pairs: [],
      pairsCheckedAt: 0,
      pairsComplete: false,
      allowanceSlots: new Map(),
    };
  });
  const workerById = new Map(workers.map((w) => [w.chain.chainId, w]));
  const hubChain = hubChainOf(options.chains);

  let states = new Map<number, ChainState>();
  let errors = new Map<number, string>();
  let current: ChainStateSnapshot = { chains: states, relayerAddress: relayer, errors };
  let inFlight: Promise<void> | undefined;
  let lastRefreshStartedAt = 0;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  const codeCache = new Map<string, { isContract: boolean; at: number }>();
  const simulationCache = new Map<string, { gas: bigint; at: number }>();

  // --- pairs and prices --------------------------------------------------------------------------------

  async function discoverPairs(w: ChainWorker): Promise<void> {
    const found = await discoverPools(w.client, w.chain, w.multicallAddress);
    w.pairs = found.pools;
    w.pairsComplete = found.complete;
    w.pairsCheckedAt = Date.now();
  }

  // --- fill simulation ---------------------------------------------------------------------------------

  function fillCalldata(
    w: ChainWorker,
    sim: Required<Omit<FillSimulation, "relayer">> & { from: string },
    now: number,
  ) {
    return (encodeFunctionData as (p: { abi: readonly unknown[]; functionName: string; args: unknown[] }) => Hex)({
      abi: spokeAbi(),
      functionName: "fillRelay",
      args: [
        {
          depositor: toBytes32(sim.from),
          recipient: toBytes32(sim.recipient),
          exclusiveRelayer: toBytes32(zeroAddress),
          inputToken: toBytes32(sim.outputToken),
          outputToken: toBytes32(sim.outputToken),
          inputAmount: sim.outputAmount,
          outputAmount: sim.outputAmount,
          originChainId: BigInt(sim.originChainId),
          // A relay nobody can have filled: its hash differs from every real deposit's.
          depositId: (1n << 200n) + BigInt(now),
          fillDeadline: Math.floor(now / 1000) + 86_400,
          exclusivityDeadline: 0,
          message: sim.message,
        },
        BigInt(w.chain.chainId),
        toBytes32(sim.from),
      ],
    });
  }

  /** Find the allowance mapping slot of `token` by overriding candidate slots and reading `allowance`. */
  async function allowanceSlot(w: ChainWorker, token: string, owner: string): Promise<bigint | null> {
    const key = `${lower(token)}:${lower(owner)}`;
    const cached = w.allowanceSlots.get(key);
    if (cached !== undefined) return cached;
    const spender = w.chain.spokePool;
    const candidates: { slot: bigint; layout: "solidity" | "vyper"; key: Hex }[] = [];
    for (let slot = 0n; slot < SLOT_PROBE_COUNT; slot++) {
      // Solidity: keccak(spender . keccak(owner . slot)); Vyper: keccak(owner-inner reversed).
      const solInner = keccak256(
        encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [owner as Address, slot]),
      );
      candidates.push({
        slot,
        layout: "solidity",
        key: keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [spender, solInner])),
      });
      const vyInner = keccak256(
        encodeAbiParameters([{ type: "uint256" }, { type: "address" }], [slot, owner as Address]),
      );
      candidates.push({
        slot,
        layout: "vyper",
        key: keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "address" }], [vyInner, spender])),
      });
    }
    let found: bigint | null = null;
    try {
      const value = await w.client.readContract({
        address: token as Address,
        abi: erc20Abi,
        functionName: "allowance",
        args: [owner as Address, spender],
        stateOverride: [
          {
            address: token as Address,
            stateDiff: candidates.map((c, i) => ({
              slot: c.key,
              value: pad(toHex(SLOT_PROBE_MARKER + BigInt(i)), { size: 32 }),
            })),
          },
        ],
      });
      const index = value - SLOT_PROBE_MARKER;
      if (index >= 0n && index < BigInt(candidates.length))
        found = BigInt(`0x${candidates[Number(index)]!.key.slice(2)}`);
    } catch {
      found = null;
    }
    w.allowanceSlots.set(key, found);
    return found;
  }

  /** eth_estimateGas of a fill: as is, then with the sender's allowance overridden. */
  async function simulateFill(w: ChainWorker, sim: FillSimulation): Promise<bigint> {
    const from = getAddress(sim.relayer ?? relayer ?? DEFAULT_SIMULATED_RECIPIENT);
    const now = Date.now();
    const data = fillCalldata(
      w,
      {
        destinationChainId: w.chain.chainId,
        outputToken: sim.outputToken,
        outputAmount: sim.outputAmount,
        recipient: sim.recipient ?? DEFAULT_SIMULATED_RECIPIENT,
        message: sim.message ?? "0x",
        originChainId: sim.originChainId ?? w.simulatedOriginChainId,
        from,
      },
      now,
    );
    const request = { account: from, to: w.chain.spokePool, data };
    try {
      return await w.client.estimateGas(request);
    } catch (plainError) {
      const slot = await allowanceSlot(w, sim.outputToken, from);
      if (slot === null) throw plainError;
      return await w.client.estimateGas({
        ...request,
        stateOverride: [
          {
            address: getAddress(sim.outputToken),
            stateDiff: [{ slot: pad(toHex(slot), { size: 32 }), value: pad(toHex(maxUint256), { size: 32 }) }],
          },
        ],
      });
    }
  }

  async function refreshFillGas(w: ChainWorker, previous: ReadonlyMap<string, FillGasEstimate> | undefined) {
    const now = Date.now();
    const result = new Map(previous ?? []);
    await Promise.all(
      w.outputTokens.map(async (token) => {
        const old = result.get(token);
        if (old && old.source === "simulated" && now - old.updatedAt < gasTtl) return;
        try {
          const gasUnits = await simulateFill(w, {
            destinationChainId: w.chain.chainId,
            outputToken: token,
            outputAmount: SIMULATED_FILL_AMOUNT,
          });
          result.set(token, { gasUnits, source: "simulated", updatedAt: now });
        } catch (error) {
          if (!old || old.source === "fallback") {
            result.set(token, { gasUnits: fallbackFillGas, source: "fallback", updatedAt: now });
          }
          options.logger?.debug(
            { chainId: w.chain.chainId, token, err: (error as Error).message.split("\n")[0] },
            "fillRelay gas simulation failed",
          );
        }
      }),
    );
    return result;
  }

  // --- refresh -----------------------------------------------------------------------------------------

  async function refreshChain(w: ChainWorker): Promise<void> {
    const chainId = w.chain.chainId;
    try {
      if (w.pairsCheckedAt === 0 || (!w.pairsComplete && Date.now() - w.pairsCheckedAt > rediscoverMs)) {
        await discoverPairs(w);
      }
      const tokens = w.chain.tokens;
      const balanceCalls = relayer
        ? [...tokens.map((t) => tokenBalanceCall(t.address, relayer)), nativeBalanceCall(w.multicallAddress, relayer)]
        : [];
      const reserveCalls = poolReadCalls(w.pairs);
      const isHub = hubChain?.chainId === chainId;
      const hubCalls = isHub ? hubPoolCalls(w.chain) : [];
      const calls = [...balanceCalls, ...reserveCalls, ...hubCalls];
      const [block, priority, results] = await Promise.all([
        w.client.getBlock({ blockTag: "latest" }),
        w.client.request({ method: "eth_maxPriorityFeePerGas" }).then(
          (v) => BigInt(v as string),
          () => 0n,
        ),
        // A failed request throws (the previous state is kept), never reads as zero balances.
        multicallEachMayFail(w.client, calls, w.multicallAddress),
      ]);
      const baseFee = block.baseFeePerGas ?? undefined;
      const gasPrice =
        baseFee !== undefined ? (baseFee * baseFeeBps) / 10_000n + priority : await w.client.getGasPrice();

      const relayerBalances = new Map<string, bigint>();
      let relayerNativeBalance = 0n;
      if (relayer) {
        tokens.forEach((t, i) => {
          const r = results[i];
          if (r?.status === "success") relayerBalances.set(lower(t.address), r.result as bigint);
        });
        const native = results[tokens.length];
        if (native?.status === "success") relayerNativeBalance = native.result as bigint;
      }
      const pools = poolsFrom(w.pairs, results.slice(balanceCalls.length, balanceCalls.length + reserveCalls.length));
      const native = wrappedNativeOf(w.chain);
      const prices = derivePrices({
        tokens,
        wrappedNative: native?.token.address,
        nativeSymbol: native?.nativeSymbol,
        pools,
        usdPrices,
        stablecoins: options.stablecoins,
      });
      const fillGas = await refreshFillGas(w, states.get(chainId)?.fillGas);
      const state: ChainState = {
        chainId,
        updatedAt: Date.now(),
        blockNumber: block.number ?? 0n,
        blockTimestamp: Number(block.timestamp),
        baseFeePerGas: baseFee,
        maxPriorityFeePerGas: priority,
        gasPrice,
        relayerNativeBalance,
        relayerBalances,
        fillGas,
        prices,
        pools: createPoolIndex(pools),
        hubPool: isHub
          ? hubPoolStateFrom(w.chain, results.slice(balanceCalls.length + reserveCalls.length))
          : undefined,
      };
      states = new Map(states).set(chainId, state);
      if (errors.has(chainId)) {
        errors = new Map(errors);
        errors.delete(chainId);
      }
    } catch (error) {
      const message = (error as Error).message.split("\n")[0] ?? String(error);
      if (errors.get(chainId) !== message) {
        options.logger?.warn({ chainId, err: message }, "chain state refresh failed; keeping the previous state");
      }
      errors = new Map(errors).set(chainId, message);
    }
    current = { chains: states, relayerAddress: relayer, errors };
  }

  function refresh(): Promise<void> {
    if (inFlight) return inFlight;
    lastRefreshStartedAt = Date.now();
    inFlight = Promise.all(workers.map(refreshChain))
      .then(() => undefined)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  function schedule() {
    if (!running) return;
    timer = setTimeout(() => {
      void refresh().finally(schedule);
    }, interval);
    timer.unref();
  }

  return {
    snapshot() {
      if (!running && !inFlight && Date.now() - lastRefreshStartedAt > interval) void refresh();
      return current;
    },
    refresh,
    async ready(timeoutMs = 10_000) {
      const complete = () => workers.every((w) => states.has(w.chain.chainId));
      if (complete()) return true;
      await withTimeout(inFlight ?? refresh(), timeoutMs, "chain state").catch(() => undefined);
      return complete();
    },
    start() {
      if (running) return;
      running = true;
      void refresh().finally(schedule);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      // A refresh stuck on a silent RPC must not hold a shutdown: wait at most a second for it.
      if (inFlight) await withTimeout(inFlight, 1000, "refresh").catch(() => undefined);
    },
    get running() {
      return running;
    },
    async isContract(chainId, address) {
      const w = workerById.get(chainId);
      if (!w) return false;
      const a = lower(address);
      if (w.knownContracts.has(a)) return true;
      const key = `${chainId}:${a}`;
      const cached = codeCache.get(key);
      // Code never disappears; "no code" may change (CREATE2 deployments), so it is re-checked after 30 s.
      if (cached && (cached.isContract || Date.now() - cached.at < 30_000)) return cached.isContract;
      const code = await withTimeout(w.client.getCode({ address: a as Address }), onDemandTimeout, "eth_getCode").catch(
        (error: Error) => {
          // The caller answers with a message of its own: the cause is kept here (the logger redacts URLs).
          options.logger?.warn({ chainId, err: error }, "eth_getCode failed");
          throw error;
        },
      );
      const isContract = code !== undefined && code !== "0x";
      if (codeCache.size > 10_000) codeCache.clear();
      codeCache.set(key, { isContract, at: Date.now() });
      return isContract;
    },
    async estimateFillGas(params) {
      const w = workerById.get(params.destinationChainId);
      if (!w) throw new Error(`chain ${params.destinationChainId} is not served`);
      const key = [
        params.destinationChainId,
        lower(params.outputToken),
        params.outputAmount,
        lower(params.recipient ?? ""),
        keccak256(params.message ?? "0x"),
        lower(params.relayer ?? ""),
      ].join(":");
      const cached = simulationCache.get(key);
      if (cached && Date.now() - cached.at < 60_000) return cached.gas;
      const gas = await withTimeout(simulateFill(w, params), onDemandTimeout, "fillRelay simulation");
      if (simulationCache.size > 1000) simulationCache.clear();
      simulationCache.set(key, { gas, at: Date.now() });
      return gas;
    },
  };
}
