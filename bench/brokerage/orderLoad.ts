/**
 * Load of `POST /v2/orders`: autocannon places limit buys of one share far below the market (they rest: the
 * cost measured is the placement's), `BENCH_CONNECTIONS` at a time for `BENCH_LOAD_SECONDS`, each request with
 * the bearer token of the next account of `BENCH_TRADING_FILE`'s `orderAccounts` in turn (so requests in flight
 * are of different accounts and the per-account lock does not serialize them), in the next symbol, at one of
 * 100 prices from $1.00 to $1.99. Prints the LoadResult as JSON on its last line.
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { printLoadResult } from "../lib/processes.ts";
import type { TradingData } from "./tradingDatabase.ts";

const url = process.argv[2] as string;
const { orderAccounts, assets } = JSON.parse(
  readFileSync(process.env.BENCH_TRADING_FILE as string, "utf8"),
) as TradingData;
const durationSec = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
let next = 0;
const result = await autocannon({
  url,
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  duration: durationSec,
  requests: [
    {
      method: "POST",
      path: "/v2/orders",
      setupRequest: (request) => {
        const n = next++;
        const account = orderAccounts[n % orderAccounts.length] as TradingData["fillAccount"];
        return {
          ...request,
          headers: { "content-type": "application/json", authorization: `Bearer ${account.token}` },
          body: JSON.stringify({
            symbol: (assets[n % assets.length] as TradingData["assets"][number]).symbol,
            qty: "1",
            side: "buy",
            type: "limit",
            limit_price: (1 + (n % 100) / 100).toFixed(2),
            time_in_force: "gtc",
          }),
        };
      },
    },
  ],
});
printLoadResult(result);
