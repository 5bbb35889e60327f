/**
 * A wallet transport that adds a margin to gas estimates, as wallets do (MetaMask and others send more than
 * `eth_estimateGas` returns), for the app-sdk's transactions: the SDK leaves `gas` to the wallet, and viem alone
 * sends the bare estimate. Anvil estimates in the context of the latest block; a transaction mined in a later
 * block can need more (a Uniswap V3 pool writes its oracle observation once per block timestamp). With the bare
 * estimate, the app-sdk's USDT → DAI swap ran out of gas about once in 40 runs under load (the origin transaction
 * reverted having used 347,626 of its 348,922 gas).
 */
import { custom, toHex } from "viem";

/** Margin over the node's estimate, in percent. */
const ESTIMATE_MARGIN_PCT = 25n;

/** JSON-RPC to `url`, with every `eth_estimateGas` answer raised by {@link ESTIMATE_MARGIN_PCT}. */
export function paddedEstimates(url: string) {
  return custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      };
      if (body.error) throw Object.assign(new Error(body.error.message), body.error);
      if (method !== "eth_estimateGas") return body.result;
      return toHex((BigInt(body.result as string) * (100n + ESTIMATE_MARGIN_PCT)) / 100n);
    },
  });
}
