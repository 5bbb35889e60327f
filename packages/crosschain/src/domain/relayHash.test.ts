import { encodeAbiParameters, type Hex, keccak256, zeroHash } from "viem";
import { describe, expect, it } from "vitest";
import {
  addressToBytes32,
  bytes32ToAddress,
  internalRelayHash,
  internalRelayHashFromWords,
  isEvmAddressBytes32,
  isMessageEmpty,
  messageHash,
  RELAY_WORD_NAMES,
  type RelayData,
  relayHash,
  toBytes32,
  uintWord,
} from "./relayHash.ts";

// Relay data of a 10 USDC deposit 8453 → 10 with no message.
const plain: RelayData = {
  depositor: "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  recipient: "0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8",
  exclusiveRelayer: zeroHash,
  inputToken: "0x000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
  outputToken: "0x0000000000000000000000000b2c639c533813f4aa9d7837caf62653d097ff85",
  inputAmount: 10_000_000n,
  outputAmount: 9_990_000n,
  originChainId: 8453n,
  depositId: 0n,
  fillDeadline: 1754353917,
  exclusivityDeadline: 0,
  message: "0x",
};

// Relay data with a message, an exclusive relayer, a huge depositId and the max uint32 deadline.
const withMessage: RelayData = {
  depositor: "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  recipient: "0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8",
  exclusiveRelayer: "0x000000000000000000000000394311a6aaa0d8e3411d8b62de4578d41322d1bd",
  inputToken: "0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  outputToken: "0x0000000000000000000000004200000000000000000000000000000000000006",
  inputAmount: 10n ** 18n,
  outputAmount: 999921094975691997n,
  originChainId: 1n,
  depositId: 123456789012345678901234567890n,
  fillDeadline: 4294967295,
  exclusivityDeadline: 1754342267,
  message: "0xdeadbeef00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff0011",
};

describe("relayHash", () => {
  // Expected values were returned by `getV3RelayHash(relayData)` of the @across-protocol/contracts 5.0.27
  // Ethereum_SpokePool artifact deployed on a local anvil with chain id 10.
  it("matches the contract's getV3RelayHash (no message)", () => {
    expect(relayHash(plain, 10n)).toBe("0xf76eaa62293219528f01dd091a98962403dc7e9e241710b4d246032f89f152eb");
  });

  it("matches the contract's getV3RelayHash (with message)", () => {
    expect(relayHash(withMessage, 10)).toBe("0x37ef2258e0e23fbd64ca3ad4953496ddde4704179cab195cbe61ce748251688e");
  });

  it("depends on the destination chain", () => {
    expect(relayHash(plain, 1n)).not.toBe(relayHash(plain, 10n));
  });

  it("accepts 20-byte addresses for the bytes32 fields", () => {
    const asAddresses: RelayData = {
      ...plain,
      depositor: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      exclusiveRelayer: "0x0000000000000000000000000000000000000000",
      inputToken: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
      outputToken: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
    };
    expect(relayHash(asAddresses, 10n)).toBe(relayHash(plain, 10n));
  });
});

describe("messageHash", () => {
  it("is bytes32(0) for an empty message (the contracts' _hashNonEmptyMessage)", () => {
    expect(messageHash("0x")).toBe(zeroHash);
    expect(messageHash("")).toBe(zeroHash);
    expect(isMessageEmpty("0x")).toBe(true);
    expect(isMessageEmpty("0x00")).toBe(false);
  });

  it("is keccak256 of the message bytes otherwise", () => {
    expect(messageHash("0x00")).toBe(keccak256("0x00"));
    expect(messageHash(withMessage.message)).toBe("0xbf7a5cbab88c926bc5b04025ccc8482049a3d9193e55530b1802e950518b7765");
  });
});

/** Hand-rolled abi.encode(tuple(11 static fields, bytes messageHash), uint256) for the internal hash. */
function manualInternalEncoding(d: RelayData, msgHash: Hex, destinationChainId: bigint): Hex {
  const word = (v: bigint) => v.toString(16).padStart(64, "0");
  const b32 = (h: Hex) => h.slice(2).toLowerCase().padStart(64, "0");
  const tupleHead = [
    b32(d.depositor),
    b32(d.recipient),
    b32(d.exclusiveRelayer),
    b32(d.inputToken),
    b32(d.outputToken),
    word(d.inputAmount),
    word(d.outputAmount),
    word(d.originChainId),
    word(d.depositId),
    word(BigInt(d.fillDeadline)),
    word(BigInt(d.exclusivityDeadline)),
    word(12n * 32n), // offset of the bytes field inside the tuple (after 12 head words)
  ];
  const bytesTail = [word(32n), b32(msgHash)]; // length 32, then the 32 data bytes
  // top level: offset of the dynamic tuple (2 words), the destination chain id, then the tuple
  return `0x${[word(64n), word(destinationChainId), ...tupleHead, ...bytesTail].join("")}`;
}

describe("internalRelayHash", () => {
  it("encodes messageHash as dynamic `bytes` (matches a hand-rolled encoding)", () => {
    const h = messageHash(withMessage.message);
    expect(internalRelayHash(withMessage, h, 10n)).toBe(keccak256(manualInternalEncoding(withMessage, h, 10n)));
    expect(internalRelayHash(plain, zeroHash, 10n)).toBe(keccak256(manualInternalEncoding(plain, zeroHash, 10n)));
  });

  it("matches viem's ABI encoder on the Across indexer's parameter list", () => {
    const params = [
      {
        type: "tuple",
        components: [
          ...["depositor", "recipient", "exclusiveRelayer", "inputToken", "outputToken"].map((name) => ({
            name,
            type: "bytes32",
          })),
          ...["inputAmount", "outputAmount", "originChainId", "depositId"].map((name) => ({ name, type: "uint256" })),
          { name: "fillDeadline", type: "uint32" },
          { name: "exclusivityDeadline", type: "uint32" },
          { name: "messageHash", type: "bytes" },
        ],
      },
      { name: "destinationChainId", type: "uint256" },
    ] as const;
    for (const d of [plain, withMessage, { ...plain, inputAmount: 2n ** 256n - 1n, depositId: 2n ** 255n }]) {
      const h = messageHash(d.message);
      const { message: _, ...head } = d;
      expect(internalRelayHash(d, h, 42161n)).toBe(
        keccak256(encodeAbiParameters(params, [{ ...head, messageHash: h }, 42161n])),
      );
    }
  });

  it("internalRelayHashFromWords (the indexer's path from log words) gives the same hash", () => {
    for (const d of [plain, withMessage, { ...plain, inputAmount: 2n ** 256n - 1n, depositId: 2n ** 255n }]) {
      const h = messageHash(d.message);
      const words = RELAY_WORD_NAMES.map((name) => {
        const v = d[name];
        return typeof v === "string" ? v.slice(2) : uintWord(v);
      });
      expect(internalRelayHashFromWords(words, uintWord(d.originChainId), uintWord(42161), h)).toBe(
        internalRelayHash(d, h, 42161n),
      );
    }
    expect(() => internalRelayHashFromWords([], uintWord(1), uintWord(2), zeroHash)).toThrow(TypeError);
  });

  it("rejects values the ABI encoder would reject", () => {
    expect(() => internalRelayHash({ ...plain, inputAmount: -1n }, zeroHash, 10n)).toThrow(RangeError);
    expect(() => internalRelayHash({ ...plain, fillDeadline: 2 ** 32 }, zeroHash, 10n)).toThrow(RangeError);
    expect(() => internalRelayHash(plain, "0x1234", 10n)).toThrow(TypeError);
  });

  it("the internal hash of a relay (its message hashed first) has known values, and differs from the on-chain hash", () => {
    const internal = (r: RelayData) => internalRelayHash(r, messageHash(r.message), 10n);
    expect(internal(withMessage)).toBe("0x13a49a98174d259d38a851f63ed2b7ff2cbd0685974bd18e4b5c7030582d4829");
    expect(internal(plain)).toBe("0x90debc40c5caea337b0c7123e166b9445aed252428e7bc21b78279236ecec6e6");
    expect(internal(plain)).not.toBe(relayHash(plain, 10n));
  });
});

describe("address <-> bytes32", () => {
  it("left-pads addresses (lower-case)", () => {
    expect(addressToBytes32("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe(
      "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    );
    expect(() => addressToBytes32("0x1234")).toThrow(TypeError);
  });

  it("unpads to a checksummed address and rejects non-address bytes32", () => {
    expect(bytes32ToAddress("0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266")).toBe(
      "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    );
    expect(isEvmAddressBytes32(zeroHash)).toBe(true);
    expect(() => bytes32ToAddress(`0x01${"0".repeat(62)}`)).toThrow(TypeError);
  });

  it("toBytes32 passes bytes32 through and pads addresses", () => {
    expect(toBytes32(plain.inputToken)).toBe(plain.inputToken);
    expect(toBytes32("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")).toBe(plain.inputToken);
  });
});
