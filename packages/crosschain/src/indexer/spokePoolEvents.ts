/**
 * The SpokePool (and MulticallHandler) events the indexer reads, decoded with the ABIs of the real
 * contracts from `@across-protocol/contracts`. Deposits are the bulk of a chain's history and go
 * straight into table rows (depositRows.ts); the other events become the facts below. Fill and slow-fill
 * facts carry the indexer's relay hash (the one with `messageHash`, as Across' indexer keys them), the
 * one a deposit row carries, so a fill on the destination finds its deposit on the origin.
 */
import { createEventDecoder, type EventDecoder, loadArtifact } from "@platform/chains";
import { type AbiEvent, type Hex, type Log, toEventSelector } from "viem";
import {
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

/** Readers of the relay's ABI words in fill and slow-fill logs (RELAY_WORD_NAMES, then the origin chain id). */
const RELAY_WORDS_BY_TOPIC = new Map<Hex, ReturnType<EventDecoder["wordsOf"]>>(
  ["FilledRelay", "RequestedSlowFill"].map((name) => {
    const decoder = spokeEventDecoder(name);
    return [decoder.selector, decoder.wordsOf([...RELAY_WORD_NAMES, "originChainId"])];
  }),
);

/** The internal relay hash of a fill or slow-fill request made on this chain (its destination). */
function relayHashOfLog(log: Log, chainId: number, msgHash: Hex): Hex {
  const read = RELAY_WORDS_BY_TOPIC.get(log.topics[0] as Hex);
  if (!read) throw new Error(`not a fill event: ${log.topics[0]}`);
  const words = read(log.topics, log.data);
  const origin = words.pop() as string;
  return internalRelayHashFromWords(words, origin, uintWord(chainId), msgHash);
}

export const CALLS_FAILED_TOPIC = selector(handlerAbi, "CallsFailed") as Hex;

export interface FillFact {
  kind: "fill";
  relayHash: Hex;
  /**
   * As the event carries them: anyone may fill any relay data, so a fill can name chains that do not
   * exist (stored as numeric, never rounded and never failing the range).
   */
  originChainId: bigint;
  depositId: bigint;
  relayer: Hex;
  repaymentChainId: bigint;
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

export type SpokeFact = FillFact | SlowFillRequestFact | SpeedUpFact | SettlementFact | CallsFailedFact;

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
  repaymentChainId: bigint;
  messageHash: Hex;
  relayer: Hex;
  relayExecutionInfo: { updatedRecipient: Hex; updatedOutputAmount: bigint; fillType: number };
  updatedOutputAmount: bigint;
  updatedRecipient: Hex;
  updatedMessage: Hex;
  depositorSignature: Hex;
}

/** Decodes one log of the chain `chainId`; undefined for logs that are not ours and for deposits (see depositRows.ts). */
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
  // Deposits are not facts: depositRows.ts reads them (their decoder stays here, for spokeEventDecoder).
  if (!decoder || decoder.name === "FundsDeposited") return undefined;
  let decoded: { eventName: string; args: Record<string, unknown> };
  try {
    decoded = { eventName: decoder.name, args: decoder.decode(log.topics, log.data) };
  } catch {
    return undefined;
  }
  const a = decoded.args as unknown as EventArgs;
  switch (decoded.eventName) {
    case "FilledRelay": {
      const info = a.relayExecutionInfo;
      return {
        kind: "fill",
        ...position,
        relayHash: relayHashOfLog(log, chainId, a.messageHash),
        originChainId: a.originChainId,
        depositId: a.depositId,
        relayer: a.relayer,
        repaymentChainId: a.repaymentChainId,
        fillType: Number(info.fillType),
        updatedRecipient: info.updatedRecipient,
        updatedOutputAmount: info.updatedOutputAmount,
      };
    }
    case "RequestedSlowFill":
      return {
        kind: "slowFillRequest",
        ...position,
        relayHash: relayHashOfLog(log, chainId, a.messageHash),
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
