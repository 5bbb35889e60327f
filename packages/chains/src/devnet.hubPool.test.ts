import { encodeAbiParameters, keccak256, parseEventLogs, zeroHash } from "viem";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "./artifacts.ts";
import { DEVNET_BOND, HUB_POOL_MIN_LIVENESS } from "./deploy.ts";
import { useDevnet } from "./testing/devnetFixture.ts";

// The HubPool as settlement needs it: a bond token (through the UMA stand-ins), the shortest liveness, the
// Timer as its clock, and Mock_Adapter relaying a root bundle: a proposal is accepted and executed.
const HUB = 1;
const devnet = useDevnet({ chainIds: [HUB] });
const hubAbi = loadArtifact("HubPool").abi;
const timerAbi = loadArtifact("Timer").abi;
const adapterAbi = loadArtifact("Mock_Adapter").abi;

const poolLeafType = [
  {
    type: "tuple",
    components: [
      { name: "chainId", type: "uint256" },
      { name: "bundleLpFees", type: "uint256[]" },
      { name: "netSendAmounts", type: "int256[]" },
      { name: "runningBalances", type: "int256[]" },
      { name: "groupIndex", type: "uint256" },
      { name: "leafId", type: "uint8" },
      { name: "l1Tokens", type: "address[]" },
    ],
  },
] as const;

describe("devnet: HubPool settlement prerequisites", () => {
  it("has a bond, the shortest liveness and a Timer clock", async () => {
    const f = devnet();
    const { contracts } = f.chain(HUB);
    const read = (functionName: string) =>
      f.publicClient(HUB).readContract({ address: contracts.hubPool, abi: hubAbi, functionName });
    expect((await read("bondToken")) as string).toBe(contracts.bondToken);
    expect(await read("bondAmount")).toBe(DEVNET_BOND + 1n);
    expect(await read("liveness")).toBe(HUB_POOL_MIN_LIVENESS);
    expect(await read("timerAddress")).toBe(contracts.timer);
  });

  it("accepts a proposal and executes its leaf once the Timer passes the liveness", async () => {
    const f = devnet();
    const { contracts } = f.chain(HUB);
    const admin = f.walletClient(HUB, f.accounts.admin);
    const hub = f.publicClient(HUB);
    const send = async (address: `0x${string}`, abi: typeof hubAbi, functionName: string, args: unknown[]) => {
      const hash = await admin.writeContract({ address, abi, functionName, args });
      const receipt = await hub.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      return receipt;
    };
    await send(contracts.hubPool, hubAbi, "setCrossChainContracts", [HUB, contracts.mockAdapter, contracts.spokePool]);
    const head = await hub.getBlock();
    await send(contracts.timer, timerAbi, "setCurrentTime", [head.timestamp]);

    const leaf = {
      chainId: BigInt(HUB),
      bundleLpFees: [],
      netSendAmounts: [],
      runningBalances: [],
      groupIndex: 0n,
      leafId: 0,
      l1Tokens: [],
    };
    const root = keccak256(encodeAbiParameters(poolLeafType, [leaf]));
    const refundRoot = keccak256("0x01");
    await send(contracts.hubPool, hubAbi, "proposeRootBundle", [[head.number], 1, root, refundRoot, zeroHash]);
    const proposal = (await hub.readContract({
      address: contracts.hubPool,
      abi: hubAbi,
      functionName: "rootBundleProposal",
    })) as readonly unknown[];
    const challengeEnd = proposal[6] as number;
    expect(BigInt(challengeEnd)).toBe(head.timestamp + BigInt(HUB_POOL_MIN_LIVENESS));

    await send(contracts.timer, timerAbi, "setCurrentTime", [BigInt(challengeEnd) + 1n]);
    const receipt = await send(contracts.hubPool, hubAbi, "executeRootBundle", [
      leaf.chainId,
      leaf.groupIndex,
      leaf.bundleLpFees,
      leaf.netSendAmounts,
      leaf.runningBalances,
      leaf.leafId,
      leaf.l1Tokens,
      [],
    ]);
    // Mock_Adapter runs by delegatecall: its event comes from the HubPool and carries the spoke's call.
    const [relayed] = parseEventLogs({ abi: adapterAbi, logs: receipt.logs, eventName: "RelayMessageCalled" });
    if (!relayed) throw new Error("no RelayMessageCalled event");
    expect(relayed.address.toLowerCase()).toBe(contracts.hubPool.toLowerCase());
    expect((relayed.args as { target: string }).target).toBe(contracts.spokePool);
  });
});
