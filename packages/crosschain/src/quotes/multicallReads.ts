/**
 * Multicall3 reads where each call may fail on its own (a call that reverts is that call's `failure`) while a
 * request that fails is an error. viem's `multicall` with `allowFailure` reports a failed request (a timeout, a
 * node busy mining) as the failure of every call of the chunk, with the one error it got: read as "no balance"
 * or "no pool", it would replace good state with zeros (a relayer balance of 0 quotes a maximum deposit of 0).
 * One chunk, so that every call reads the same block.
 */
import type { Address, PublicClient } from "viem";

/** One call's outcome, as viem's `multicall` gives it with `allowFailure`. */
export type CallResult = { status: "success"; result: unknown } | { status: "failure"; error: Error };

/**
 * Runs `contracts` in one Multicall3 `aggregate3` call.
 * @throws the request's error when the request itself failed (every call failed with one same error).
 */
export async function multicallEachMayFail(
  client: PublicClient,
  contracts: readonly unknown[],
  multicallAddress: Address,
): Promise<CallResult[]> {
  if (contracts.length === 0) return [];
  const results = (await client.multicall({
    contracts: contracts as never,
    allowFailure: true,
    batchSize: 0,
    multicallAddress,
  })) as CallResult[];
  const first = results[0];
  if (first?.status === "failure" && results.every((r) => r.status === "failure" && r.error === first.error)) {
    throw first.error;
  }
  return results;
}
