/**
 * The SpokePool (and MulticallHandler) events the indexer reads, decoded with the ABIs of the real
 * contracts from `@across-protocol/contracts`. Deposit and fill facts carry the indexer's relay hash
 * (the one with `messageHash`, as Across' indexer keys them), so a fill on the destination finds its
 * deposit on the origin.
 */
import { createEventDecoder, type EventDecoder, loadArtifact } from "@platform/chains";
import { type AbiEvent, type Hex, type Log, toEventSelector } from "viem";
import {
  messageHash as hashMessage,
  internalRelayHashFromWords,
  RELAY_WORD_NAMES,
  type RelayDataWithoutMessage,
  uintWord,
} from "../domain/relayHash.ts";

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

/** A decoder for each event we read, by topic (planned once from the ABI; see createEventDecoder). */
const DECODER_BY_TOPIC = new Map(
  (spokeAbi as unknown as AbiEvent[])
    .filter((e) => e.type === "event" && [...DEPOSIT_EVENTS, ...SETTLEMENT_EVENTS].includes(e.name as never))
    .map((e) => {
      const decoder = createEventDecoder(e);
      return [decoder.selector, decoder];
    }),
);
/** The planned decoder of one of the SpokePool events we read (see DEPOSIT_EVENTS, SETTLEMENT_EVENTS). */
export function spokeEventDecoder(name: string): EventDecoder {
  const decoder = [...DECODER_BY_TOPIC.values()].find((d) => d.name === name);
  if (!decoder) throw new Error(`the SpokePool ABI has no ${name} event`);
  return decoder;
}

/**
 * Readers of the relay's ABI words in deposit, fill and slow-fill logs (RELAY_WORD_NAMES, then the chain id
 * the event carries: the destination in a deposit, the origin in a fill or slow-fill request).
 */
const RELAY_WORDS_BY_TOPIC = new Map<Hex, ReturnType<EventDecoder["wordsOf"]>>(
  [
    ["FundsDeposited", "destinationChainId"],
    ["FilledRelay", "originChainId"],
    ["RequestedSlowFill", "originChainId"],
  ].map(([name, chainIdName]) => {
    const decoder = spokeEventDecoder(name as string);
    return [decoder.selector, decoder.wordsOf([...RELAY_WORD_NAMES, chainIdName as string])];
  }),
);

/** The internal relay hash of a deposit (origin = this chain) or a fill/slow-fill request (destination = this chain). */
function relayHashOfLog(log: Log, chainId: number, side: "origin" | "destination", msgHash: Hex): Hex {
  const read = RELAY_WORDS_BY_TOPIC.get(log.topics[0] as Hex);
  if (!read) throw new Error(`not a relay event: ${log.topics[0]}`);
  const words = read(log.topics, log.data);
  const other = words.pop() as string;
  const here = uintWord(chainId);
  return side === "origin"
    ? internalRelayHashFromWords(words, here, other, msgHash)
    : internalRelayHashFromWords(words, other, here, msgHash);
}

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
  /** The depositor's EIP-712 signature of the new terms (what fillRelayWithUpdatedDeposit verifies). */
  depositorSignature: Hex;
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
  depositorSignature: Hex;
}

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
  const decoder = DECODER_BY_TOPIC.get(log.topics[0] as Hex);
  if (!decoder) return undefined;
  let decoded: { eventName: string; args: Record<string, unknown> };
  try {
    decoded = { eventName: decoder.name, args: decoder.decode(log.topics, log.data) };
  } catch {
    return undefined;
  }
  const a = decoded.args as unknown as EventArgs;
  switch (decoded.eventName) {
    case "FundsDeposited": {
      const message = a.message as Hex;
      const msgHash = hashMessage(message);
      return {
        kind: "deposit",
        ...position,
        originChainId: chainId,
        depositId: a.depositId,
        destinationChainId: Number(a.destinationChainId),
        relayHash: relayHashOfLog(log, chainId, "origin", msgHash),
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
      return {
        kind: "fill",
        ...position,
        relayHash: relayHashOfLog(log, chainId, "destination", a.messageHash),
        originChainId: Number(a.originChainId),
        depositId: a.depositId,
        relayer: a.relayer,
        repaymentChainId: Number(a.repaymentChainId),
        fillType: Number(info.fillType),
        updatedRecipient: info.updatedRecipient,
        updatedOutputAmount: info.updatedOutputAmount,
      };
    }
    case "RequestedSlowFill":
      return {
        kind: "slowFillRequest",
        ...position,
        relayHash: relayHashOfLog(log, chainId, "destination", a.messageHash),
      };
    case "RequestedSpeedUpDeposit":
      return {
        kind: "speedUp",
        ...position,
        depositId: a.depositId,
        depositor: a.depositor,
        updatedOutputAmount: a.updatedOutputAmount,
        updatedRecipient: a.updatedRecipient,
        updatedMessage: a.updatedMessage,
        depositorSignature: a.depositorSignature,
      };
    default:
      if ((SETTLEMENT_EVENTS as readonly string[]).includes(decoded.eventName)) {
        return { kind: "settlement", ...position, eventName: decoded.eventName, args: jsonSafe(decoded.args) };
      }
      return undefined;
  }
}

/**
 * The integrator id the app-sdk appends to deposit calldata: `…1dc0de` + 2 bytes at the very end, or
 * before the swap marker `73c0de` on swap transactions (app-sdk `tagIntegratorId`). Null when absent.
 */
export function integratorIdOf(calldata: string): string | null {
  let data = calldata.toLowerCase();
  if (data.endsWith("73c0de")) data = data.slice(0, -6);
  const tag = /1dc0de([0-9a-f]{4})$/.exec(data);
  return tag ? `0x${tag[1]}` : null;
}
