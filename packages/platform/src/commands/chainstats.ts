/**
 * `platform chainstats backfill --chain <id> [--from N] [--exit-when-synced]`: runs the block indexer of
 * one chain in the foreground with a progress bar (blocks/s, ETA), then follows the head until Ctrl-C.
 * It resumes from the chain's checkpoint; `--from N` re-indexes the chain from block N. Killing it at
 * any instant loses and duplicates nothing (each window commits with its checkpoint).
 */
import { createIndexers } from "@platform/chainstats";
import type { Config } from "@platform/kernel";
import { openPlatformOrExplain } from "../admin/platformAccess.ts";
import { resolveChains } from "../chainEndpoints.ts";
import { quiet } from "./operatorCommand.ts";
import { createProgressBar } from "./progress.ts";

export async function chainstatsBackfill(
  config: Config,
  o: { chain: string; from?: string; exitWhenSynced?: boolean },
) {
  const chainId = Number(o.chain);
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new Error(`--chain must be a chain id (got "${o.chain}")`);
  const from = o.from === undefined ? undefined : Number(o.from);
  if (from !== undefined && (!Number.isSafeInteger(from) || from < 0)) {
    throw new Error(`--from must be a block number (got "${o.from}")`);
  }
  const chain = resolveChains(config).find((c) => c.chainId === chainId);
  if (!chain) {
    throw new Error(`No RPC for chain ${chainId}: set CHAIN_RPC_URLS=${chainId}=<url>, or start the devnet`);
  }
  // On the embedded database this fails while a platform (whose indexer follows the chains) owns the folder.
  const platform = await openPlatformOrExplain(quiet(config));
  const [indexer] = createIndexers({
    config: { ...config, chainstatsChains: [chainId] },
    db: platform.db,
    logger: platform.logger,
    chains: [chain],
  });
  if (!indexer) throw new Error("no indexer");
  if (from !== undefined) await indexer.restartFrom(BigInt(from));

  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const bar = createProgressBar("blocks");
  const run = indexer.run(controller.signal);
  const s = indexer.status;
  let synced = false;
  const timer = setInterval(() => {
    if (s.head === null || s.next === null || s.startBlock === null) return;
    const total = Number(s.head - s.startBlock + 1n);
    const done = Number(s.next - s.startBlock);
    bar.update(
      done,
      total,
      s.state === "error" ? `retrying: ${s.lastError}` : s.state === "following" ? "following head" : "",
    );
    if (s.state === "following" && !synced) {
      synced = true;
      if (o.exitWhenSynced) controller.abort();
    }
  }, 250);
  await run;
  clearInterval(timer);
  bar.finish(
    `chain ${chainId}: indexed up to block ${s.next === null ? "-" : s.next - 1n} (${s.indexed} blocks this run, ${s.reorgs} reorgs)`,
  );
  await platform.close();
}
