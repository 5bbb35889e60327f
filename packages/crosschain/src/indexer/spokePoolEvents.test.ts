import { type LogsView, loadArtifact, scanLogsReply } from "@platform/chains";
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, type Log, zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import { internalRelayHash, messageHash } from "../domain/relayHash.ts";
import { createDepositRows } from "./depositRows.ts";
import { decodeSpokeLog, integratorIdOf } from "./spokePoolEvents.ts";

describe("integratorIdOf", () => {
  const deposit = `0xad5425c6${"00".repeat(64)}`;

  it("reads the app-sdk's suffix, also before the swap marker", () => {
    expect(integratorIdOf(`${deposit}1dc0de00BE`)).toBe("0x00be");
    expect(integratorIdOf(`${deposit}1dc0debeef73c0de`)).toBe("0xbeef");
  });

  it("is null without the suffix, even when the delimiter appears inside the calldata", () => {
    expect(integratorIdOf(deposit)).toBeNull();
    expect(integratorIdOf(`0xad5425c61dc0debeef${"00".repeat(64)}`)).toBeNull();
    expect(integratorIdOf("0x")).toBeNull();
  });
});

describe("relay hashes of deposits and fills", () => {
  const spokeAbi = loadArtifact("Ethereum_SpokePool").abi as readonly AbiEvent[];
  const event = (name: string) => spokeAbi.find((e) => e.type === "event" && e.name === name) as AbiEvent;
  const b32 = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
  const relay = {
    depositor: b32(0xd0),
    recipient: b32(0xec),
    exclusiveRelayer: b32(0),
    inputToken: b32(0xa1),
    outputToken: b32(0xb2),
    inputAmount: 123_456_789n,
    outputAmount: 123_000_000n,
    depositId: 1_000_042n,
    fillDeadline: 1_800_000_000,
    exclusivityDeadline: 7,
  };
  const logOf = (e: AbiEvent, args: Record<string, unknown>): Log => {
    const topics = encodeEventTopics({ abi: [e], eventName: e.name, args } as never) as Hex[];
    const inputs = e.inputs.filter((p) => !p.indexed);
    return {
      topics,
      data: encodeAbiParameters(
        inputs,
        inputs.map((p) => args[p.name as string]),
      ),
      blockNumber: 5n,
      blockHash: b32(5),
      transactionHash: b32(6),
      transactionIndex: 0,
      logIndex: 0,
      address: zeroAddress,
      removed: false,
    } as unknown as Log;
  };

  it("a deposit row and its fill get the same internal relay hash, the one of internalRelayHash", () => {
    const message = "0x1234" as Hex;
    const depositLog = logOf(event("FundsDeposited"), {
      ...relay,
      destinationChainId: 10n,
      quoteTimestamp: 1_700_000_000,
      message,
    });
    const rows = createDepositRows(8453);
    const reply = { result: [{ ...depositLog, blockNumber: "0x5", logIndex: "0x0", transactionIndex: "0x0" }] };
    const view = scanLogsReply(Buffer.from(JSON.stringify(reply))) as LogsView;
    expect(rows.push(view, 0, { number: 5n, timestamp: 1 })).toBe(true);
    const depositRelayHash = `0x${Buffer.from(rows.bytes()).toString("latin1").split("\t")[3]?.slice(3)}`;
    const fill = decodeSpokeLog(
      10,
      logOf(event("FilledRelay"), {
        ...relay,
        repaymentChainId: 10n,
        originChainId: 8453n,
        messageHash: messageHash(message),
        relayer: b32(0xfe),
        relayExecutionInfo: {
          updatedRecipient: relay.recipient,
          updatedMessageHash: messageHash(message),
          updatedOutputAmount: relay.outputAmount,
          fillType: 0,
        },
      }),
    );
    const expected = internalRelayHash({ ...relay, originChainId: 8453n }, messageHash(message), 10n);
    expect(depositRelayHash).toBe(expected);
    expect(fill?.kind === "fill" && fill.relayHash).toBe(expected);
  });
});
