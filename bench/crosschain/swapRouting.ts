/**
 * The router's path search over a large pool set, in process: 1,000 pools among 200 tokens, two-hop best-route
 * searches between random token pairs, against the same index answering a one-hop lookup (the least a search
 * can do) as the in-run baseline.
 */
import { type AmmPool, createPoolIndex, findBestRoute } from "../../packages/crosschain/src/domain/swap/index.ts";

export function swapRoutingBenchmark(pools = 1000, tokens = 200, searches = 20_000) {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const names = Array.from({ length: tokens }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
  const list: AmmPool[] = [];
  while (list.length < pools) {
    const a = names[Math.floor(random() * tokens)] as string;
    const b = names[Math.floor(random() * tokens)] as string;
    if (a === b) continue;
    const [token0, token1] = a < b ? [a, b] : [b, a];
    const depth = 10n ** 18n * BigInt(1000 + Math.floor(random() * 100_000));
    list.push({
      source: random() < 0.5 ? "uniswap_v2" : "uniswap_v3",
      address: `0x${list.length.toString(16).padStart(40, "0")}`,
      token0,
      token1,
      reserve0: depth,
      reserve1: (depth * BigInt(50 + Math.floor(random() * 100))) / 100n,
      feePips: 3000,
    });
  }
  const index = createPoolIndex(list);
  const pairs: [string, string][] = Array.from({ length: searches }, () => [
    names[Math.floor(random() * tokens)] as string,
    names[Math.floor(random() * tokens)] as string,
  ]);
  const time = (maxHops: 1 | 2) => {
    let found = 0;
    const start = process.hrtime.bigint();
    for (const [tokenIn, tokenOut] of pairs) {
      if (findBestRoute(index, { tokenIn, tokenOut, amount: 10n ** 18n, kind: "exactInput", maxHops })) found++;
    }
    return { usPerSearch: Number(process.hrtime.bigint() - start) / 1000 / searches, found };
  };
  time(2); // warm-up
  const twoHops = time(2);
  const oneHop = time(1);
  return {
    pools,
    tokens,
    searches,
    twoHops,
    oneHop,
    ratio: Math.round((twoHops.usPerSearch / oneHop.usPerSearch) * 10) / 10,
  };
}
