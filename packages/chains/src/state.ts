import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { Hex } from "viem";
import type { DeploymentPlan, DevnetPool, DevnetV3Pool } from "./deploy.ts";

// Bookkeeping beside each chain's saved anvil state (<dataDir>/devnet/chain-<id>.meta.json).

/** Which deployment layout a saved chain state holds, and its genesis. */
export interface ChainMeta {
  layout: string;
  genesisHash: Hex;
  genesisTimestamp: number;
}

/** The meta file of a chain, or undefined when missing or unreadable. */
export function readMeta(path: string): ChainMeta | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as ChainMeta;
  } catch {
    return undefined;
  }
}

export function writeMeta(path: string, meta: ChainMeta): void {
  writeFileSync(path, `${JSON.stringify(meta)}\n`);
}

/** Digest of every address the deployment produces: a saved state is reusable only with the same layout. */
export function layoutDigest(
  plan: Pick<DeploymentPlan, "contracts" | "tokens">,
  pools: DevnetPool[],
  v3Pools: DevnetV3Pool[],
): string {
  const layout = JSON.stringify({ contracts: plan.contracts, tokens: plan.tokens, pools, v3Pools });
  return createHash("sha256").update(layout).digest("hex");
}

/**
 * Anvil stamps a new genesis block with the current second. A chain recreated within the same second as
 * its previous genesis would get the same genesis hash, hiding the reset from indexers: wait it out.
 */
export async function sleepToNextSecondAfter(ts: number): Promise<void> {
  const wait = (ts + 1) * 1000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait + 5));
}
