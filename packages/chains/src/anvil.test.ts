import { afterAll, describe, expect, it } from "vitest";
import { type AnvilNode, STATES_KEPT, startAnvil } from "./anvil.ts";

let node: AnvilNode | undefined;
afterAll(() => node?.stop());

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: string; error?: { code: number; message: string } };
}

describe("a pruned anvil node", () => {
  // A read of "latest" resolved just before an interval block is mined reads the block before the newest:
  // bare --prune-history kept no such state and answered -32602 BlockOutOfRangeError.
  it("still answers reads of the blocks just before its newest", async () => {
    node = await startAnvil({ chainId: 999, port: 0, pruneHistory: true });
    await rpc(node.rpcUrl, "anvil_mine", ["0x10"]);
    const head = BigInt((await rpc(node.rpcUrl, "eth_blockNumber", [])).result as string);
    const call = { to: "0x0000000000000000000000000000000000000001", data: "0x" };
    for (let back = 1n; back < BigInt(STATES_KEPT); back++) {
      const answer = await rpc(node.rpcUrl, "eth_call", [call, `0x${(head - back).toString(16)}`]);
      expect(answer.error, `block ${head - back}`).toBeUndefined();
    }
  });
});
