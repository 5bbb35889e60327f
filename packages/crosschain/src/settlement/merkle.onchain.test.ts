/**
 * Our leaf encodings and Across' Merkle tree, checked by the contracts themselves: every proof of randomized
 * trees is accepted by MerkleLib (through the `MerkleLibTest` artifact of @across-protocol/contracts, the
 * library HubPool.executeRootBundle and SpokePool.executeRelayerRefundLeaf / executeSlowRelayLeaf use), and a
 * tampered leaf is rejected. Replay a failure with MERKLE_TEST_SEED=<printed seed>.
 */
import { createRequire } from "node:module";
import { type AnvilNode, devnetAccounts, startAnvil } from "@platform/chains";
import { replayableRandom } from "@platform/kernel/testing";
import { type Abi, type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "./buildBundle.ts";
import { poolRebalanceTree, relayerRefundTree, slowRelayTree } from "./merkle.ts";
import { addr, allRoutes, item, l1, randomLeaves, relayData } from "./testSupport.ts";
import type { BundleItem, MerkleLeaves } from "./types.ts";

const artifact = createRequire(import.meta.url)(
  "@across-protocol/contracts/dist/evm/artifacts/MerkleLibTest.sol/MerkleLibTest.json",
) as { abi: Abi; bytecode: Hex };

const SIZES = [1, 2, 3, 255, 1000];

let node: AnvilNode | undefined;
let publicClient: ReturnType<typeof createPublicClient>;
let merkleLib: Address;

beforeAll(async () => {
  node = await startAnvil({ chainId: 1, port: 0 });
  const account = privateKeyToAccount(devnetAccounts().admin.privateKey);
  const transport = http(node.rpcUrl, { batch: { batchSize: 100 } });
  publicClient = createPublicClient({ transport });
  const wallet = createWalletClient({ account, transport });
  const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, chain: null });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error("MerkleLibTest was not deployed");
  merkleLib = receipt.contractAddress;
});
afterAll(() => node?.stop());

type Verifier = "verifyPoolRebalance" | "verifyRelayerRefund" | "verifyV3SlowRelayFulfillment";

function verify(functionName: Verifier, root: Hex, leaf: unknown, proof: readonly Hex[]): Promise<boolean> {
  return publicClient.readContract({
    address: merkleLib,
    abi: artifact.abi,
    functionName,
    args: [root, leaf, proof],
  }) as Promise<boolean>;
}

/** Every leaf of `tree` verifies; the tampered first leaf and a wrong root do not. */
async function expectContractAccepts<L>(fn: Verifier, tree: MerkleLeaves<L>, tamper: (leaf: L) => L): Promise<void> {
  const results = await Promise.all(tree.leaves.map((leaf, i) => verify(fn, tree.root, leaf, tree.proofs[i]!)));
  expect(results.every(Boolean), `${fn}: rejected leaves ${results.flatMap((ok, i) => (ok ? [] : [i]))}`).toBe(true);
  const [first] = tree.leaves;
  expect(await verify(fn, tree.root, tamper(first!), tree.proofs[0]!)).toBe(false);
  const otherRoot = `0x${(BigInt(tree.root) ^ 1n).toString(16).padStart(64, "0")}` as Hex;
  expect(await verify(fn, otherRoot, first, tree.proofs[0]!)).toBe(false);
}

describe("Merkle proofs on the real MerkleLib", () => {
  it.each(SIZES)("accepts every proof of random trees of %i leaves, rejects a tampered one", async (size) => {
    const random = replayableRandom("MERKLE_TEST_SEED");
    console.info(`merkle.onchain: ${size} leaves, MERKLE_TEST_SEED=${random.seed}`);
    const leaves = randomLeaves(random.next);

    const pool = poolRebalanceTree(Array.from({ length: Math.min(size, 256) }, (_, i) => leaves.pool(i)));
    await expectContractAccepts("verifyPoolRebalance", pool, (l) => ({ ...l, groupIndex: l.groupIndex + 1n }));

    const refund = relayerRefundTree(Array.from({ length: size }, (_, i) => leaves.refund(i, 10n)));
    await expectContractAccepts("verifyRelayerRefund", refund, (l) => ({
      ...l,
      amountToReturn: l.amountToReturn + 1n,
    }));

    const slow = slowRelayTree(Array.from({ length: size }, () => leaves.slow(42161n)));
    await expectContractAccepts("verifyV3SlowRelayFulfillment", slow, (l) => ({
      ...l,
      relayData: { ...l.relayData, message: `${l.relayData.message}00` as Hex },
    }));
  });

  it("accepts every proof of a built bundle", async () => {
    const random = replayableRandom("MERKLE_TEST_SEED");
    console.info(`merkle.onchain: built bundle, MERKLE_TEST_SEED=${random.seed}`);
    const chains = [1, 10, 137, 8453, 42161];
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random.next() * xs.length)]!;
    const kinds = ["deposit", "fillRefund", "expiredRefund", "slowFill", "excessSlowFill"] as const;
    const items: BundleItem[] = Array.from({ length: 400 }, (_, i) => {
      const kind = pick(kinds);
      const chainId = pick(chains);
      const amount = BigInt(1 + Math.floor(random.next() * 1e9));
      return item(kind, {
        chainId,
        l1Token: l1(1 + Math.floor(random.next() * 3)),
        amount,
        lpFee: kind === "fillRefund" || kind === "slowFill" ? amount / 100n : 0n,
        payee: addr(1 + Math.floor(random.next() * 40)),
        ...(kind === "slowFill"
          ? { relayData: relayData(BigInt(pick(chains)), BigInt(i), { outputAmount: amount }) }
          : {}),
      });
    });
    const bundle = buildBundle({
      items,
      previousRunningBalances: [],
      targets: () => ({ target: 10n ** 8n, threshold: 10n ** 9n }),
      tokenMap: allRoutes,
      maxRefundLeafSize: 7,
      maxPoolLeafSize: 2,
      chainIds: chains,
    });
    await expectContractAccepts("verifyPoolRebalance", bundle.poolRebalance, (l) => ({ ...l, leafId: l.leafId + 1 }));
    await expectContractAccepts("verifyRelayerRefund", bundle.relayerRefund, (l) => ({
      ...l,
      chainId: l.chainId + 1n,
    }));
    await expectContractAccepts("verifyV3SlowRelayFulfillment", bundle.slowRelay, (l) => ({
      ...l,
      updatedOutputAmount: l.updatedOutputAmount - 1n,
    }));
  });
});
