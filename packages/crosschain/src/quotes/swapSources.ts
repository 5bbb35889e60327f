/**
 * Swap sources: the AMM venues each chain has configured (its contracts name a factory), under the names the
 * anchor's `/swap/sources` uses for them, and how `includeSources`/`excludeSources` of a swap quote resolve
 * against them. Unlike the anchor (reference §1.6), a chain without sources answers an empty list, never a 500.
 */
import type { SpokeChain } from "../deployments.ts";

/** Which contract makes a chain a source, and the source's name. */
const SOURCE_BY_FACTORY: Readonly<Record<string, string>> = {
  uniswapV2Factory: "uniswap_v2",
  uniswapV3Factory: "uniswap_v3",
};
/** The contract (by its name in the chain's contracts) that executes a source's paths. */
const ROUTER_BY_SOURCE: Readonly<Record<string, string>> = {
  uniswap_v2: "uniswapV2Router02",
  uniswap_v3: "uniswapV3SwapRouter",
};

/** Sources whose router can deliver the native coin at the end of a path (V2's `swap…ForETH`; V3's router returns WETH). */
const NATIVE_OUT_SOURCES: ReadonlySet<string> = new Set(["uniswap_v2"]);

/** Of `sources`, those that cannot end a path in the native coin (to exclude from such a leg). */
export const sourcesWithoutNativeOut = (sources: readonly string[]): string[] =>
  sources.filter((source) => !NATIVE_OUT_SOURCES.has(source));

/** The router of `source` on `chain`, when it has one. */
export const routerOf = (chain: SpokeChain, source: string): `0x${string}` | undefined =>
  chain.contracts[ROUTER_BY_SOURCE[source] ?? ""];

/** Sources configured on `chain`, sorted. */
export function swapSourcesOf(chain: SpokeChain): string[] {
  return Object.entries(SOURCE_BY_FACTORY)
    .filter(([contract]) => chain.contracts[contract] !== undefined)
    .map(([, source]) => source)
    .sort();
}

/** Every source of the given chains, sorted and de-duplicated. */
export function swapSourcesOfChains(chains: readonly SpokeChain[]): string[] {
  return [...new Set(chains.flatMap(swapSourcesOf))].sort();
}

export type ResolvedSources = { ok: true; sources: string[] } | { ok: false; unknown: string };

/**
 * The configured sources `requested` names, matched case-insensitively; a family name matches its members
 * (`uniswap` → `uniswap_v2`, as the anchor's 0x names alias families). A name matching nothing is returned as
 * `unknown`, so the caller can say which.
 */
export function resolveSourceNames(requested: readonly string[], available: readonly string[]): ResolvedSources {
  const sources = new Set<string>();
  for (const raw of requested) {
    const name = raw.trim().toLowerCase();
    const matches = available.filter((s) => s === name || s.startsWith(`${name}_`));
    if (matches.length === 0) return { ok: false, unknown: raw };
    for (const m of matches) sources.add(m);
  }
  return { ok: true, sources: [...sources].sort() };
}
