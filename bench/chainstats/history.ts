/**
 * A long chain history for the chainstats benchmarks, built once and reused from an anvil state dump
 * in the temp directory (anvil mines only a few hundred blocks per second, slower as the chain grows,
 * so it is mined in chunks of 1,000 with a progress line).
 */
import { existsSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnvilNode, startAnvil } from "@platform/chains";
import { rpc } from "@platform/chainstats/testing";

export const CHAIN = 1337;
const GENESIS = Date.UTC(2025, 0, 1) / 1000;

export async function startHistoryNode(blocks: number): Promise<AnvilNode> {
  const file = join(tmpdir(), `platform-bench-chainstats-${blocks}.json`);
  if (!existsSync(file)) {
    const building = `${file}.building`;
    const node = await startAnvil({ chainId: CHAIN, port: 0, genesisTimestamp: GENESIS, dumpState: building });
    const started = Date.now();
    for (let done = 0; done < blocks; done += 1_000) {
      const n = Math.min(1_000, blocks - done);
      // 12-second blocks with a gas limit that drifts, so daily averages differ.
      await rpc(node.rpcUrl, "evm_setBlockGasLimit", [`0x${(30_000_000 + (done % 7_000)).toString(16)}`]);
      await rpc(node.rpcUrl, "anvil_mine", [`0x${n.toString(16)}`, "0xc"]);
      process.stdout.write(
        `  history: ${done + n}/${blocks} blocks (${Math.round((Date.now() - started) / 1000)} s)\n`,
      );
    }
    await node.stop();
    renameSync(building, file);
  }
  return startAnvil({ chainId: CHAIN, port: 0, loadState: file });
}
