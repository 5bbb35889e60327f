/**
 * The SpokePool (and MulticallHandler) events the indexer reads, decoded with the ABIs of the real
 * contracts from `@across-protocol/contracts`. Deposit and fill facts carry the indexer's relay hash
 * (the one with `messageHash`, as Across' indexer keys them), so a fill on the destination finds its
 * deposit on the origin.
 */
import { loadArtifact } from "@platform/chains";
import { decodeEventLog, type Hex, type Log, toEventSelector } from "viem";
import { messageHash as hashMessage, internalRelayHash, type RelayDataWithoutMessage } from "../domain/relayHash.ts";

const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;
const handlerAbi = loadArtifact("MulticallHandler").abi;

const DEPOSIT_EVENTS = ["FundsDeposited", "FilledRelay", "RequestedSlowFill", "RequestedSpeedUpDeposit"] as const;
/** Settlement events, stored raw for the refunds work. */
const SETTLEMENT_EVENTS = [
  "RelayedRootBundle",
  "ExecutedRelayerRefundRoot",
  "TokensBridged",
  "ClaimedRelayerRefund",
  "EmergencyDeletedRootBundle",
] as const;

function selector(abi: readonly unknown[], name: string): Hex | undefined {
  const item = (abi as { type: string; name?: string }[]).find((e) => e.type === "event" && e.name === name);
  return item ? toEventSelector(item as never) : undefined;
}

export const SPOKE_TOPICS = [...DEPOSIT_EVENTS, ...SETTLEMENT_EVENTS]
  .map((n) => selector(spokeAbi, n))
  .filter((t): t is Hex => t !== undefined);

/**
 * The ABI item of each event we read, by topic: decoding against one item instead of the whole ABI
 * spares viem hashing every event signature of the SpokePool for every log.
 */
const EVENT_BY_TOPIC = new Map(
  (spokeAbi as unknown as { type: string; name?: string }[])
    .filter((e) => e.type === "event" && [...DEPOSIT_EVENTS, ...SETTLEMENT_EVENTS].includes(e.name as never))
    .map((e) => [toEventSelector(e as never), e]),
);
export const CALLS_FAILED_TOPIC = selector(handlerAbi, "CallsFailed") as Hex;

export interface DepositFact {
  kind: "deposit";
  originChainId: number;
  depositId: bigint;
  destinationChainId: number;
  relayHash: Hex;
  depositor: Hex;
  recipient: Hex;
  exclusiveRelayer: Hex;
  inputToken: Hex;
  outputToken: Hex;
  inputAmount: bigint;
  outputAmount: bigint;
  quoteTimestamp: number;
  fillDeadline: number;
  exclusivityDeadline: number;
  message: Hex;
  messageHash: Hex;
}

export interface FillFact {
  kind: "fill";
  relayHash: Hex;
  originChainId: number;
  depositId: bigint;
  relayer: Hex;
  repaymentChainId: number;
  fillType: number;
  updatedRecipient: Hex;
  updatedOutputAmount: bigint;
}

export interface SlowFillRequestFact {
  kind: "slowFillRequest";
  relayHash: Hex;
}

export interface SpeedUpFact {
  kind: "speedUp";
  depositId: bigint;
  depositor: Hex;
  updatedOutputAmount: bigint;
  updatedRecipient: Hex;
  updatedMessage: Hex;
}

export interface SettlementFact {
  kind: "settlement";
  eventName: string;
  args: Record<string, unknown>;
}

export interface CallsFailedFact {
  kind: "callsFailed";
}

export type SpokeFact = DepositFact | FillFact | SlowFillRequestFact | SpeedUpFact | SettlementFact | CallsFailedFact;

/** Where a fact was found. */
export interface LogPosition {
  txHash: Hex;
  txIndex: number;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
}

const jsonSafe = (args: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));

/** The decoded arguments of the events above, by name (each event has a subset). */
interface EventArgs extends RelayDataWithoutMessage {
  destinationChainId: bigint;
  repaymentChainId: bigint;
  quoteTimestamp: number;
  message: Hex;
  messageHash: Hex;
  relayer: Hex;
  relayExecutionInfo: { updatedRecipient: Hex; updatedOutputAmount: bigint; fillType: number };
  updatedOutputAmount: bigint;
  updatedRecipient: Hex;
  updatedMessage: Hex;
}

/** The relay data fields every deposit/fill/slow-fill event carries (addresses as bytes32). */
const relayDataOf = (a: EventArgs, originChainId: bigint) => ({
  depositor: a.depositor,
  recipient: a.recipient,
  exclusiveRelayer: a.exclusiveRelayer,
  inputToken: a.inputToken,
  outputToken: a.outputToken,
  inputAmount: a.inputAmount,
  outputAmount: a.outputAmount,
  originChainId,
  depositId: a.depositId,
  fillDeadline: Number(a.fillDeadline),
  exclusivityDeadline: Number(a.exclusivityDeadline),
});

/** Decodes one log of the chain `chainId`; undefined for logs that are not ours. */
export function decodeSpokeLog(chainId: number, log: Log): (SpokeFact & LogPosition) | undefined {
  const position: LogPosition = {
    txHash: log.transactionHash as Hex,
    txIndex: Number(log.transactionIndex),
    logIndex: Number(log.logIndex),
    blockNumber: log.blockNumber as bigint,
    blockHash: log.blockHash as Hex,
  };
  if (log.topics[0] === CALLS_FAILED_TOPIC) return { kind: "callsFailed", ...position };
  const item = EVENT_BY_TOPIC.get(log.topics[0] as Hex);
  if (!item) return undefined;
  let decoded: { eventName: string; args: Record<string, unknown> };
  try {
    decoded = decodeEventLog({ abi: [item] as never, data: log.data, topics: log.topics as never }) as never;
  } catch {
    return undefined;
  }
  const a = decoded.args as unknown as EventArgs;
  switch (decoded.eventName) {
    case "FundsDeposited": {
      const message = a.message as Hex;
      const msgHash = hashMessage(message);
      const relayData = relayDataOf(a, BigInt(chainId));
      return {
        kind: "deposit",
        ...position,
        originChainId: chainId,
        depositId: a.depositId,
        destinationChainId: Number(a.destinationChainId),
        relayHash: internalRelayHash(relayData, msgHash, a.destinationChainId as bigint),
        depositor: a.depositor,
        recipient: a.recipient,
        exclusiveRelayer: a.exclusiveRelayer,
        inputToken: a.inputToken,
        outputToken: a.outputToken,
        inputAmount: a.inputAmount,
        outputAmount: a.outputAmount,
        quoteTimestamp: Number(a.quoteTimestamp),
        fillDeadline: Number(a.fillDeadline),
        exclusivityDeadline: Number(a.exclusivityDeadline),
        message,
        messageHash: msgHash,
      };
    }
    case "FilledRelay": {
      const info = a.relayExecutionInfo;
      const relayData = relayDataOf(a, a.originChainId);
      return {
        kind: "fill",
        ...position,
        relayHash: internalRelayHash(relayData, a.messageHash as Hex, BigInt(chainId)),
        originChainId: Number(a.originChainId),
        depositId: a.depositId,
        relayer: a.relayer,
        repaymentChainId: Number(a.repaymentChainId),
        fillType: Number(info.fillType),
        updatedRecipient: info.updatedRecipient,
        updatedOutputAmount: info.updatedOutputAmount,
      };
    }
    case "RequestedSlowFill": {
      const relayData = relayDataOf(a, a.originChainId);
      return {
        kind: "slowFillRequest",
        ...position,
        relayHash: internalRelayHash(relayData, a.messageHash as Hex, BigInt(chainId)),
      };
    }
    case "RequestedSpeedUpDeposit":
      return {
        kind: "speedUp",
        ...position,
        depositId: a.depositId,
        depositor: a.depositor,
        updatedOutputAmount: a.updatedOutputAmount,
        updatedRecipient: a.updatedRecipient,
        updatedMessage: a.updatedMessage,
      };
    default:
      if ((SETTLEMENT_EVENTS as readonly string[]).includes(decoded.eventName)) {
        return { kind: "settlement", ...position, eventName: decoded.eventName, args: jsonSafe(decoded.args) };
      }
      return undefined;
  }
}

/** The integrator id the app-sdk appends to deposit calldata (`0x1dc0de` + 2 bytes), if any. */
export function integratorIdOf(calldata: string): string | null {
  const i = calldata.toLowerCase().lastIndexOf("1dc0de");
  return i >= 0 && calldata.length >= i + 10 ? `0x${calldata.slice(i + 6, i + 10).toLowerCase()}` : null;
}
