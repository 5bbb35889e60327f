import { loadArtifact, type RpcLog, scanLogsReply } from "@platform/chains";
import { type AbiEvent, decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, toHex, zeroHash } from "viem";
import { describe, expect, it } from "vitest";
import { internalRelayHash, messageHash } from "../domain/relayHash.ts";
import type { FundsDepositedArgs } from "../testing/spokePoolActions.ts";
import { createDepositRows, DEPOSIT_COLUMNS, isFundsDeposited } from "./depositRows.ts";

const fundsDeposited = (loadArtifact("Ethereum_SpokePool").abi as readonly AbiEvent[]).find(
  (e) => e.type === "event" && e.name === "FundsDeposited",
) as AbiEvent;
const b32 = (n: bigint | number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

/** A FundsDeposited log as a node answers it, encoded by viem. */
function rpcLog(args: FundsDepositedArgs): RpcLog {
  const topics = encodeEventTopics({ abi: [fundsDeposited], eventName: "FundsDeposited", args } as never) as Hex[];
  const inputs = fundsDeposited.inputs.filter((p) => !p.indexed);
  return {
    address: "0x0000000000000000000000000000000000000aaa",
    topics,
    data: encodeAbiParameters(
      inputs,
      inputs.map((p) => args[p.name as keyof FundsDepositedArgs]),
    ),
    blockNumber: "0x1f",
    blockHash: b32(0xb10c),
    transactionHash: b32(0x7a),
    transactionIndex: "0x2",
    logIndex: "0x11",
    removed: false,
  };
}

const base: FundsDepositedArgs = {
  depositor: b32(0xd0),
  recipient: b32(0xec),
  exclusiveRelayer: b32(0),
  inputToken: b32(0xa1),
  outputToken: b32(0xb2),
  inputAmount: 123_456_789n,
  outputAmount: 123_000_000n,
  destinationChainId: 10n,
  depositId: 1_000_042n,
  quoteTimestamp: 1_700_000_000,
  fillDeadline: 1_800_000_000,
  exclusivityDeadline: 7,
  message: "0x",
};

/** The logs as a node's reply, read in place as the indexer reads it. */
const viewOf = (logs: unknown[]) => {
  const view = scanLogsReply(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, result: logs })));
  if (!view) throw new Error("the scanner refused the reply");
  return view;
};

const rowsOf = (chainId: number, logs: unknown[], time: number) => {
  const view = viewOf(logs);
  const rows = createDepositRows(chainId);
  const block = { number: 31n, timestamp: time };
  const pushed = logs.map((_, i) => isFundsDeposited(view, i) && rows.push(view, i, block));
  return { pushed, count: rows.count, lines: Buffer.from(rows.bytes()).toString("latin1") };
};

describe("createDepositRows", () => {
  it("writes every column from the log's words, with the values viem decodes", () => {
    const cases: FundsDepositedArgs[] = [
      base,
      // Amounts and ids past 2^53 (decimal through BigInt), a message (hashed), uint32 maxima.
      {
        ...base,
        inputAmount: 10n ** 24n + 7n,
        outputAmount: 2n ** 256n - 1n,
        depositId: 2n ** 255n + 3n,
        fillDeadline: 2 ** 32 - 1,
        exclusivityDeadline: 0,
        message: "0xdeadbeef00",
        destinationChainId: 2n ** 52n - 1n,
      },
      // Chain ids just past the fast path, and the largest a bigint column holds.
      { ...base, destinationChainId: 2n ** 52n, message: toHex(new Uint8Array(100).fill(7)) },
      { ...base, destinationChainId: 2n ** 63n - 1n },
    ];
    const { pushed, count, lines } = rowsOf(
      8453,
      cases.map((c) => rpcLog(c)),
      1_700_000_123,
    );
    expect(pushed).toEqual(cases.map(() => true));
    expect(count).toBe(cases.length);
    const rows = lines.split("\n");
    expect(rows.at(-1)).toBe(""); // every line ends with \n
    cases.forEach((c, i) => {
      const fields = (rows[i] as string).split("\t");
      expect(fields).toHaveLength(DEPOSIT_COLUMNS.length);
      const row = Object.fromEntries(DEPOSIT_COLUMNS.map((name, k) => [name, fields[k]]));
      const bytea = (h: Hex) => `\\\\x${h.slice(2)}`;
      const msgHash = c.message === "0x" ? zeroHash : messageHash(c.message);
      expect(row).toEqual({
        origin_chain_id: "8453",
        deposit_id: c.depositId.toString(),
        destination_chain_id: c.destinationChainId.toString(),
        relay_hash: bytea(internalRelayHash({ ...c, originChainId: 8453n }, msgHash, c.destinationChainId)),
        depositor: bytea(c.depositor),
        recipient: bytea(c.recipient),
        exclusive_relayer: bytea(c.exclusiveRelayer),
        input_token: bytea(c.inputToken),
        output_token: bytea(c.outputToken),
        input_amount: c.inputAmount.toString(),
        output_amount: c.outputAmount.toString(),
        quote_timestamp: String(c.quoteTimestamp),
        fill_deadline: String(c.fillDeadline),
        exclusivity_deadline: String(c.exclusivityDeadline),
        message: bytea(c.message),
        message_hash: bytea(msgHash),
        tx_hash: bytea(b32(0x7a)),
        tx_index: "2",
        log_index: "17",
        block_number: "31",
        block_timestamp: "1700000123",
      });
      // viem's decoder reads the same values from the same log.
      const log = rpcLog(c);
      const { args } = decodeEventLog({ abi: [fundsDeposited], topics: log.topics as [Hex], data: log.data });
      const a = args as unknown as FundsDepositedArgs;
      expect([a.depositId, a.destinationChainId, a.inputAmount, a.outputAmount].map(String)).toEqual([
        row.deposit_id,
        row.destination_chain_id,
        row.input_amount,
        row.output_amount,
      ]);
      expect([a.quoteTimestamp, a.fillDeadline, a.exclusivityDeadline].map(String)).toEqual([
        row.quote_timestamp,
        row.fill_deadline,
        row.exclusivity_deadline,
      ]);
      expect([a.depositor, a.recipient, a.exclusiveRelayer, a.inputToken, a.outputToken, a.message].map(bytea)).toEqual(
        [row.depositor, row.recipient, row.exclusive_relayer, row.input_token, row.output_token, row.message],
      );
    });
  });

  it("skips logs that do not fit the event, writing nothing for them", () => {
    const good = rpcLog(base);
    const bad: RpcLog[] = [
      { ...good, data: good.data.slice(0, 200) as Hex }, // truncated data
      { ...good, topics: good.topics.slice(0, 3) }, // a topic missing
      { ...good, topics: [b32(1), ...good.topics.slice(1)] }, // another event
      // fillDeadline (a uint32) holding more than 32 bits
      {
        ...good,
        data: `${good.data.slice(0, 2 + 64 * 5)}${b32(2n ** 40n).slice(2)}${good.data.slice(2 + 64 * 6)}` as Hex,
      },
      // the message's length running past the data
      { ...good, data: `${good.data.slice(0, -64)}${b32(1000).slice(2)}` as Hex },
      // a destination chain id no bigint column holds (no route leads there; storing it would fail the range)
      rpcLog({ ...base, destinationChainId: 2n ** 63n }),
      // the message's offset pointing past the data
      {
        ...good,
        data: `${good.data.slice(0, 2 + 64 * 9)}${b32(10_000).slice(2)}${good.data.slice(2 + 64 * 10)}` as Hex,
      },
      // values that are not hex: COPY would read a tab or a newline in them as a field or a row
      { ...good, data: `${good.data.slice(0, 100)}\t\n${good.data.slice(104)}` as Hex },
      { ...good, topics: [good.topics[0], "0x\tnot hex", ...good.topics.slice(2)] as Hex[] },
      { ...good, data: null as unknown as Hex },
    ];
    const { pushed, count, lines } = rowsOf(8453, [...bad, good], 1);
    expect(pushed).toEqual([...bad.map(() => false), true]);
    expect(count).toBe(1);
    expect(lines.split("\n")).toHaveLength(2);
  });

  it("refuses a log without its transaction hash or indexes (a broken reply, read again)", () => {
    const good = rpcLog(base);
    for (const broken of [
      { ...good, transactionHash: undefined },
      { ...good, logIndex: null },
      { ...good, transactionIndex: "0xzz" },
    ]) {
      expect(() => rowsOf(8453, [broken], 1)).toThrow(/transaction hash or indexes/);
    }
  });
});
