import { keccak256Hex } from "@platform/chains";
import { encodeAbiParameters, getAddress, type Hex, isAddress, isHex, pad, zeroHash } from "viem";

/**
 * Relay identities.
 *
 * - The on-chain relay hash (`SpokePool.getV3RelayHash`, the key of `fillStatuses`):
 *   `keccak256(abi.encode(V3RelayData relayData, uint256 destinationChainId))` with the full message.
 * - The indexer's internal hash: the same tuple with `bytes messageHash` in place of `bytes message`
 *   (fill events only carry the message hash). Note the field is ABI-typed `bytes`, not `bytes32`.
 * - Message hash as the contracts emit it: `bytes32(0)` for an empty message, else `keccak256(message)`.
 */

/** V3RelayData (contracts ≥ 4): addresses as bytes32, depositId as uint256. */
export interface RelayData {
  depositor: Hex;
  recipient: Hex;
  exclusiveRelayer: Hex;
  inputToken: Hex;
  outputToken: Hex;
  inputAmount: bigint;
  outputAmount: bigint;
  originChainId: bigint;
  depositId: bigint;
  /** uint32 seconds. */
  fillDeadline: number;
  /** uint32 seconds. */
  exclusivityDeadline: number;
  message: Hex;
}

/** {@link RelayData} without the message, for the internal hash. */
export type RelayDataWithoutMessage = Omit<RelayData, "message">;

/** ABI component list of `V3SpokePoolInterface.V3RelayData` without its message (field order and types of the artifact). */
export const relayDataHead = [
  { name: "depositor", type: "bytes32" },
  { name: "recipient", type: "bytes32" },
  { name: "exclusiveRelayer", type: "bytes32" },
  { name: "inputToken", type: "bytes32" },
  { name: "outputToken", type: "bytes32" },
  { name: "inputAmount", type: "uint256" },
  { name: "outputAmount", type: "uint256" },
  { name: "originChainId", type: "uint256" },
  { name: "depositId", type: "uint256" },
  { name: "fillDeadline", type: "uint32" },
  { name: "exclusivityDeadline", type: "uint32" },
] as const;

const relayHashParams = [
  { type: "tuple", components: [...relayDataHead, { name: "message", type: "bytes" }] },
  { name: "destinationChainId", type: "uint256" },
] as const;

/** True for `0x`/empty messages (the SDK's `isMessageEmpty`). */
export function isMessageEmpty(message: string | null | undefined): boolean {
  return message === undefined || message === null || message === "" || message === "0x";
}

/** Message hash as emitted by the SpokePool: `bytes32(0)` for an empty message, else `keccak256(message)`. */
export function messageHash(message: Hex | "" | null | undefined): Hex {
  if (isMessageEmpty(message)) return zeroHash;
  return keccak256Hex(message as Hex);
}

/** Left-pad a 20-byte EVM address to bytes32 (lower-case hex). */
export function addressToBytes32(address: string): Hex {
  if (!isAddress(address, { strict: false })) throw new TypeError(`addressToBytes32: not an address: ${address}`);
  return pad(address.toLowerCase() as Hex, { size: 32 });
}

/** Whether a bytes32 holds a left-padded EVM address (upper 12 bytes zero). */
export function isEvmAddressBytes32(value: string): boolean {
  return /^0x0{24}[0-9a-fA-F]{40}$/.test(value);
}

/** The checksummed EVM address held in a left-padded bytes32; throws when the upper 12 bytes are not zero. */
export function bytes32ToAddress(value: string): Hex {
  if (!isEvmAddressBytes32(value)) throw new TypeError(`bytes32ToAddress: not a left-padded address: ${value}`);
  return getAddress(`0x${value.slice(26)}`);
}

const LOWER_BYTES32 = /^0x[0-9a-f]{64}$/;

/** Accept an address or a bytes32 and return the bytes32 form (addresses are left-padded). */
export function toBytes32(value: string): Hex {
  if (value.length === 66 && LOWER_BYTES32.test(value)) return value as Hex;
  if (isHex(value) && value.length === 66) return value.toLowerCase() as Hex;
  return addressToBytes32(value);
}

const head = (relayData: RelayDataWithoutMessage) => ({
  depositor: toBytes32(relayData.depositor),
  recipient: toBytes32(relayData.recipient),
  exclusiveRelayer: toBytes32(relayData.exclusiveRelayer),
  inputToken: toBytes32(relayData.inputToken),
  outputToken: toBytes32(relayData.outputToken),
  inputAmount: relayData.inputAmount,
  outputAmount: relayData.outputAmount,
  originChainId: relayData.originChainId,
  depositId: relayData.depositId,
  fillDeadline: relayData.fillDeadline,
  exclusivityDeadline: relayData.exclusivityDeadline,
});

/**
 * On-chain relay hash (`getV3RelayHash` evaluated on the destination chain):
 * `keccak256(abi.encode(relayData, destinationChainId))`. Address fields may be given as 20-byte addresses.
 */
export function relayHash(relayData: RelayData, destinationChainId: bigint | number): Hex {
  const message = isMessageEmpty(relayData.message) ? "0x" : relayData.message;
  return keccak256Hex(
    encodeAbiParameters(relayHashParams, [{ ...head(relayData), message }, BigInt(destinationChainId)]),
  );
}

/**
 * The indexer's internal hash (key of its relay rows):
 * `keccak256(abi.encode(tuple(…, bytes messageHash), destinationChainId))`.
 */
export function internalRelayHash(
  relayData: RelayDataWithoutMessage,
  msgHash: Hex,
  destinationChainId: bigint | number,
): Hex {
  // One encoding for both paths: the ABI words of the fields, hashed as the indexers hash a log's own
  // words (every field is one static word; `messageHash` is a 32-byte `bytes` in the tuple's tail).
  // Tested against viem's encoder.
  if (msgHash.length !== 66) throw new TypeError(`internalRelayHash: messageHash must be 32 bytes, got ${msgHash}`);
  const h = head(relayData);
  return internalRelayHashFromWords(
    [
      h.depositor.slice(2),
      h.recipient.slice(2),
      h.exclusiveRelayer.slice(2),
      h.inputToken.slice(2),
      h.outputToken.slice(2),
      uint256(h.inputAmount),
      uint256(h.outputAmount),
      uint256(h.depositId),
      uint256(h.fillDeadline, 32),
      uint256(h.exclusivityDeadline, 32),
    ],
    uint256(h.originChainId),
    uint256(BigInt(destinationChainId)),
    msgHash,
  );
}

/**
 * The relay fields the SpokePool events carry as single ABI words, in the order
 * {@link internalRelayHashFromWords} takes them (V3RelayData order, without the origin chain id).
 */
export const RELAY_WORD_NAMES = [
  "depositor",
  "recipient",
  "exclusiveRelayer",
  "inputToken",
  "outputToken",
  "inputAmount",
  "outputAmount",
  "depositId",
  "fillDeadline",
  "exclusivityDeadline",
] as const;

/**
 * {@link internalRelayHash} from ABI words (64 hex digits each, no 0x) as they sit in an event log:
 * `relay` holds the words of {@link RELAY_WORD_NAMES} in that order. The indexers' path: the values a
 * relay hash encodes are already ABI words in the log, so they are hashed as they are instead of being
 * decoded, checked and encoded again (which cost the backfill more than the hashing itself).
 */
export function internalRelayHashFromWords(
  relay: readonly string[],
  originChainId: string,
  destinationChainId: string,
  msgHash: Hex,
): Hex {
  if (relay.length !== RELAY_WORD_NAMES.length) throw new TypeError("internalRelayHashFromWords: wrong word count");
  const [depositor, recipient, exclusiveRelayer, inputToken, outputToken, inputAmount, outputAmount, depositId] = relay;
  return keccak256Hex(
    `0x${TUPLE_OFFSET}${destinationChainId}${depositor}${recipient}${exclusiveRelayer}${inputToken}${outputToken}${inputAmount}${outputAmount}${originChainId}${depositId}${relay[8]}${relay[9]}${MESSAGE_HASH_OFFSET_AND_LENGTH}${msgHash.slice(2)}`,
  );
}

/** A uint (a chain id, say) as one ABI word, for {@link internalRelayHashFromWords}. */
export const uintWord = (n: number | bigint): string => uint256(BigInt(n));

const word = (n: number) => n.toString(16).padStart(64, "0");
/** The tuple starts after two head words (its offset, the destination chain id). */
const TUPLE_OFFSET = word(0x40);
/** `messageHash` starts after the tuple's 12 head words, and is 32 bytes long. */
const MESSAGE_HASH_OFFSET_AND_LENGTH = word(12 * 32) + word(32);

/**
 * Word slots of the internal relay hash's preimage (16 ABI words: the tuple's offset, the destination
 * chain id, the tuple's 12 head words, then `messageHash` as a 32-byte `bytes`), the layout
 * {@link internalRelayHashFromWords} writes as hex. For indexers that fill it from a log's bytes.
 */
export const RELAY_HASH_SLOT = {
  destinationChainId: 1,
  depositor: 2,
  recipient: 3,
  exclusiveRelayer: 4,
  inputToken: 5,
  outputToken: 6,
  inputAmount: 7,
  outputAmount: 8,
  originChainId: 9,
  depositId: 10,
  fillDeadline: 11,
  exclusivityDeadline: 12,
  messageHash: 15,
} as const;

/** A preimage buffer with its constant words in place (offsets, length) and `originChainId` set. */
export function relayHashPreimage(originChainId: number | bigint): Buffer {
  const words = Buffer.alloc(16 * 32);
  words.write(TUPLE_OFFSET, 0, "hex");
  words.write(uintWord(originChainId), RELAY_HASH_SLOT.originChainId * 32, "hex");
  words.write(MESSAGE_HASH_OFFSET_AND_LENGTH, 13 * 32, "hex");
  return words;
}

const UINT256_LIMIT = 1n << 256n;
const UINT32_LIMIT = 2 ** 32;

/** One ABI word of an unsigned integer of `bits` bits (256 or 32); throws outside that range like the ABI encoder. */
function uint256(value: bigint | number, bits: 256 | 32 = 256): string {
  const ok =
    typeof value === "number"
      ? Number.isInteger(value) && value >= 0 && value < (bits === 32 ? UINT32_LIMIT : Number.MAX_SAFE_INTEGER)
      : value >= 0n && (bits === 32 ? value < BigInt(UINT32_LIMIT) : value < UINT256_LIMIT);
  if (!ok) throw new RangeError(`uint${bits} out of range: ${value}`);
  return value.toString(16).padStart(64, "0");
}
