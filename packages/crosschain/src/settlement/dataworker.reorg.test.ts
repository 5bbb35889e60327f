/**
 * A reorg under a bundle that is built but not yet proposed: the dataworker finds an end block replaced,
 * abandons the bundle and returns its items to the ledger, so nothing the new chain does not have is paid.
 */
import { hexToBytea } from "@platform/kernel";
import { parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { rpc, waitFor } from "../relayer/testSupport.ts";
import { makeDeposit } from "../testing/spokePoolActions.ts";
import { type SettlementHarness, startSettlementHarness } from "./testHarness.ts";

const HUB = 1;
const SPOKE = 10;
let h: SettlementHarness;

beforeAll(async () => {
  h = await startSettlementHarness([HUB, SPOKE]);
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

it("abandons a built bundle whose range a reorg replaced, and books nothing of the lost deposit", async () => {
  const { f } = h;
  const snapshot = await rpc<string>(f, SPOKE, "evm_snapshot");
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let built: number | undefined;
  h.startDataworker({
    async onStep(step, info) {
      if (step !== "built" || built !== undefined) return;
      built = info.bundleId as number;
      await held; // the test reorganises the spoke chain meanwhile
    },
  });
  const lost = await makeDeposit(f, {
    origin: SPOKE,
    destination: HUB,
    inputAmount: parseUnits("30", 6),
    outputAmount: parseUnits("29", 6),
  });
  await waitFor("the bundle built", () => built, 30_000);

  // The deposit's block and everything after it leave the chain; a longer chain replaces them.
  expect(await rpc<boolean>(f, SPOKE, "evm_revert", [snapshot])).toBe(true);
  await rpc(f, SPOKE, "anvil_mine", ["0x20"]);
  release();

  await waitFor(
    "the bundle abandoned",
    async () => {
      const [row] = await h.db.query<{ status: string }>("SELECT status FROM crosschain.bundles WHERE id = $1", [
        built,
      ]);
      return row?.status === "abandoned";
    },
    30_000,
  );
  const items = await h.db.query("SELECT 1 FROM crosschain.bundle_items WHERE relay_hash = $1", [
    hexToBytea(lost.internalRelayHash),
  ]);
  expect(items).toHaveLength(0);
  // The indexer rolled the deposit back: no later bundle books it either.
  await h.catchUp();
  await waitFor(
    "the lost deposit gone from the index",
    async () =>
      (
        await h.db.query("SELECT 1 FROM crosschain.deposits WHERE relay_hash = $1", [
          hexToBytea(lost.internalRelayHash),
        ])
      ).length === 0,
    30_000,
  );
  expect(
    await h.db.query("SELECT 1 FROM crosschain.bundle_items WHERE relay_hash = $1", [
      hexToBytea(lost.internalRelayHash),
    ]),
  ).toHaveLength(0);
});
