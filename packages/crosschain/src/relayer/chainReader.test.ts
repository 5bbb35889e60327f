/**
 * The reader's fee choice against a scripted node (viem's own client over a `custom` transport): a chain
 * without a base fee makes it use the gas price for good; any other failure leaves EIP-1559 fees on.
 */
import { createPublicClient, custom, type PublicClient } from "viem";
import { describe, expect, it } from "vitest";
import type { SpokeChain } from "../deployments.ts";
import { createChainReader } from "./chainReader.ts";

const RELAYER = "0x00000000000000000000000000000000000000aa";
const chain: SpokeChain = {
  chainId: 31337,
  rpcUrl: "http://127.0.0.1:8545",
  spokePool: "0x00000000000000000000000000000000000000bb",
  multicallHandler: undefined,
  wrappedNativeToken: undefined,
  contracts: {},
  tokens: [],
};

const block = (baseFeePerGas?: string) => ({
  number: "0x10",
  hash: `0x${"11".repeat(32)}`,
  parentHash: `0x${"22".repeat(32)}`,
  timestamp: "0x6553f100",
  gasLimit: "0x1c9c380",
  gasUsed: "0x0",
  miner: `0x${"00".repeat(20)}`,
  transactions: [],
  ...(baseFeePerGas ? { baseFeePerGas } : {}),
});

/** A node answering from `answers` by method; a function answer may throw a JSON-RPC error. */
function scriptedClient(answers: Record<string, () => unknown>): PublicClient {
  return createPublicClient({
    transport: custom(
      {
        async request({ method }: { method: string }) {
          const answer = answers[method];
          if (!answer) throw Object.assign(new Error(`method ${method} not scripted`), { code: -32601 });
          return answer();
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
}

const rpcError = (message: string) => Object.assign(new Error(message), { code: -32000 });

describe("chainReader.marketFees", () => {
  it("uses the gas price on a chain whose blocks have no base fee", async () => {
    const reader = createChainReader(
      chain,
      scriptedClient({ eth_getBlockByNumber: () => block(), eth_gasPrice: () => "0x3b9aca00" }),
      RELAYER,
    );
    expect(await reader.marketFees()).toEqual({ maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    expect(reader.legacyFees).toBe(true);
  });

  it("keeps EIP-1559 fees after a node error that mentions base fees", async () => {
    let calls = 0;
    const reader = createChainReader(
      chain,
      scriptedClient({
        eth_getBlockByNumber: () => {
          if (calls++ === 0) throw rpcError("cannot compute base fee: header not found");
          return block("0x64");
        },
        eth_maxPriorityFeePerGas: () => "0x2",
        eth_gasPrice: () => "0x3b9aca00",
      }),
      RELAYER,
    );
    await expect(reader.marketFees()).rejects.toMatchObject({ name: "InvalidInputRpcError" });
    expect(reader.legacyFees).toBe(false);
    // viem's default base fee multiplier is 1.2: 100 × 1.2 + 2.
    expect(await reader.marketFees()).toEqual({ maxFeePerGas: 122n, maxPriorityFeePerGas: 2n });
  });
});
