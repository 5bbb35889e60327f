/**
 * Token prices of one chain, from Uniswap V2 pool reserves and an optional USD price map (pure; the
 * chain-state cache reads the reserves).
 *
 * - The wrapped native token is worth exactly 1 native.
 * - Pool prices propagate from known tokens: a T/WETH pool prices T in native; a DAI/USDC pool prices DAI
 *   once USDC is known (so every token reachable through pools gets a price).
 * - The native token's USD price comes from the map (key `ETH`/native symbol or the wrapped symbol), else
 *   from the first stablecoin with a pool price (USDC/WETH: 3,000,000 USDC : 1,000 WETH → 3,000 USD).
 * - Stablecoins are then pinned to 1 USD and mapped tokens to their configured USD price.
 *
 * All prices are 1e18-scaled per whole token: `inNative` = native units (18 decimals) per token, `usd` = USD.
 */
import { WAD } from "../domain/fees/fixedPoint.ts";

/** Symbols pinned to 1 USD unless the price map says otherwise. */
const DEFAULT_STABLECOINS: readonly string[] = Object.freeze(["USDC", "USDT", "DAI", "USDC.E", "USDBC"]);

export interface PriceToken {
  address: string;
  symbol: string;
  decimals: number;
}

/** Reserves of a Uniswap V2 pair (`token0 < token1` as the pair sorts them), for token prices. */
export interface AmmPoolReserves {
  token0: string;
  token1: string;
  reserve0: bigint;
  reserve1: bigint;
}

export interface DerivePricesInput {
  tokens: readonly PriceToken[];
  /** The wrapped native token (priced 1 native). */
  wrappedNative?: string;
  /** The native currency symbol (e.g. ETH), for the USD map. */
  nativeSymbol?: string;
  pools: readonly AmmPoolReserves[];
  /** USD prices by symbol (upper-case keys), 1e18-scaled. */
  usdPrices?: ReadonlyMap<string, bigint>;
  /** Default {@link DEFAULT_STABLECOINS}. */
  stablecoins?: readonly string[];
}

export interface ChainPrices {
  /** Native per whole token (1e18-scaled), by lower-case address. */
  inNative: Map<string, bigint>;
  /** USD per whole token (1e18-scaled), by lower-case address; empty when the native USD price is unknown. */
  usd: Map<string, bigint>;
  /** USD per native (1e18-scaled), when known. */
  nativeUsd?: bigint;
}

const pow10 = (n: number) => 10n ** BigInt(n);
const HI = WAD * WAD;

/** Parse a human USD price ("3000", "0.9995", 1) into a 1e18-scaled bigint; throws on anything else. */
export function parseUsdPrice(value: string | number): bigint {
  const text = typeof value === "number" ? String(value) : value.trim();
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!match) throw new RangeError(`invalid USD price: ${String(value)}`);
  return BigInt(match[1] as string) * WAD + BigInt((match[2] ?? "").padEnd(18, "0") || "0");
}

/** Derive the chain's prices (see the module comment). */
export function derivePrices(input: DerivePricesInput): ChainPrices {
  const tokens = new Map(input.tokens.map((t) => [t.address.toLowerCase(), t]));
  // Propagation runs at 1e36 so that a small price (1 USDC ≈ 3.3e14 native units) keeps its precision.
  const hi = new Map<string, bigint>();
  const wrapped = input.wrappedNative?.toLowerCase();
  if (wrapped) hi.set(wrapped, HI);

  // Propagate through pools until nothing changes (at most one pass per token).
  for (let pass = 0; pass <= tokens.size; pass++) {
    let changed = false;
    for (const pool of input.pools) {
      const a = pool.token0.toLowerCase();
      const b = pool.token1.toLowerCase();
      const ta = tokens.get(a);
      const tb = tokens.get(b);
      if (!ta || !tb || pool.reserve0 <= 0n || pool.reserve1 <= 0n) continue;
      const pa = hi.get(a);
      const pb = hi.get(b);
      if (pa !== undefined && pb === undefined) {
        // price(b) = price(a) * (reserve0 / 10^dec0) / (reserve1 / 10^dec1)
        hi.set(b, (pa * pool.reserve0 * pow10(tb.decimals)) / (pool.reserve1 * pow10(ta.decimals)));
        changed = true;
      } else if (pb !== undefined && pa === undefined) {
        hi.set(a, (pb * pool.reserve1 * pow10(ta.decimals)) / (pool.reserve0 * pow10(tb.decimals)));
        changed = true;
      }
    }
    if (!changed) break;
  }

  const usdPrices = input.usdPrices ?? new Map<string, bigint>();
  const stablecoins = (input.stablecoins ?? DEFAULT_STABLECOINS).map((s) => s.toUpperCase());
  const wrappedSymbol = wrapped ? tokens.get(wrapped)?.symbol.toUpperCase() : undefined;
  let nativeUsd =
    (input.nativeSymbol ? usdPrices.get(input.nativeSymbol.toUpperCase()) : undefined) ??
    (wrappedSymbol ? usdPrices.get(wrappedSymbol) : undefined);
  if (nativeUsd === undefined) {
    for (const symbol of stablecoins) {
      const token = [...tokens.values()].find((t) => t.symbol.toUpperCase() === symbol);
      const price = token && hi.get(token.address.toLowerCase());
      if (price && price > 0n) {
        nativeUsd = ((usdPrices.get(symbol) ?? WAD) * HI) / price;
        break;
      }
    }
  }

  const inNative = new Map([...hi].map(([address, price]) => [address, price / WAD] as const));
  const usd = new Map<string, bigint>();
  if (nativeUsd !== undefined && nativeUsd > 0n) {
    for (const [address, token] of tokens) {
      const symbol = token.symbol.toUpperCase();
      const fixedUsd = usdPrices.get(symbol) ?? (stablecoins.includes(symbol) ? WAD : undefined);
      if (fixedUsd !== undefined && address !== wrapped) {
        inNative.set(address, (fixedUsd * WAD) / nativeUsd);
        usd.set(address, fixedUsd);
        continue;
      }
      const price = hi.get(address);
      if (price !== undefined) usd.set(address, (price * nativeUsd) / HI);
    }
  }
  return { inNative, usd, nativeUsd };
}
