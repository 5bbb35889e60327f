import { encodeAbiParameters, keccak256, pad } from "viem";
import { describe, expect, it } from "vitest";
import { addr, relayData } from "../testSupport.ts";
import type { PoolRebalanceLeaf, RelayerRefundLeaf, SlowFillLeaf } from "../types.ts";
import {
  encodePoolRebalanceLeaf,
  encodeRelayerRefundLeaf,
  encodeSlowFillLeaf,
  hashPoolRebalanceLeaf,
  hashRelayerRefundLeaf,
  hashSlowFillLeaf,
  RELAYER_REFUND_LEAF_COMPONENTS,
} from "./encode.ts";

const refund: RelayerRefundLeaf = {
  amountToReturn: 5n,
  chainId: 10n,
  refundAmounts: [7n],
  leafId: 3,
  l2TokenAddress: addr(0x11),
  refundAddresses: [addr(0x22)],
};

const pool: PoolRebalanceLeaf = {
  chainId: 10n,
  bundleLpFees: [1n, 2n],
  netSendAmounts: [-3n, 4n],
  runningBalances: [-5n, 0n],
  groupIndex: 0n,
  leafId: 1,
  l1Tokens: [addr(0x10), addr(0x20)],
};

const slow: SlowFillLeaf = {
  relayData: relayData(1n, 42n, { message: "0xdeadbeef" }),
  chainId: 10n,
  updatedOutputAmount: 985n,
};

const word = (n: number | bigint) => pad(`0x${n.toString(16)}`, { size: 32 }).slice(2);

describe("leaf encoding", () => {
  it("encodes a refund leaf as abi.encode(struct): one dynamic tuple behind a 0x20 offset (word by word)", () => {
    const expected = `0x${[
      word(0x20), // offset of the tuple: the struct is dynamic
      word(5), // amountToReturn
      word(10), // chainId
      word(0xc0), // offset of refundAmounts inside the tuple (6 head words)
      word(3), // leafId
      pad(addr(0x11)).slice(2), // l2TokenAddress
      word(0x100), // offset of refundAddresses (0xc0 + 2 words)
      word(1),
      word(7), // refundAmounts = [7]
      word(1),
      pad(addr(0x22)).slice(2), // refundAddresses = [0x22…22]
    ].join("")}`;
    expect(encodeRelayerRefundLeaf(refund)).toBe(expected);
    expect(hashRelayerRefundLeaf(refund)).toBe(keccak256(expected as `0x${string}`));
  });

  it("differs from the flat encoding (fields as top-level parameters)", () => {
    const flat = encodeAbiParameters(RELAYER_REFUND_LEAF_COMPONENTS, [
      refund.amountToReturn,
      refund.chainId,
      refund.refundAmounts,
      refund.leafId,
      refund.l2TokenAddress,
      refund.refundAddresses,
    ]);
    expect(encodeRelayerRefundLeaf(refund)).not.toBe(flat);
    expect(encodeRelayerRefundLeaf(refund)).toBe(`0x${word(0x20)}${flat.slice(2)}`);
  });

  it("starts every leaf kind with the 0x20 tuple offset", () => {
    for (const encoded of [encodePoolRebalanceLeaf(pool), encodeRelayerRefundLeaf(refund), encodeSlowFillLeaf(slow)]) {
      expect(encoded.slice(0, 66)).toBe(`0x${word(0x20)}`);
    }
  });

  it("encodes negative int256 as two's complement in a pool leaf", () => {
    const encoded = encodePoolRebalanceLeaf(pool);
    expect(encoded).toContain(`${"f".repeat(63)}d`); // -3
    expect(encoded).toContain(`${"f".repeat(63)}b`); // -5
  });

  it("nests V3RelayData as a tuple with bytes32 addresses and a dynamic message", () => {
    const encoded = encodeSlowFillLeaf(slow).slice(2);
    const words = encoded.match(/.{64}/g) ?? [];
    expect(words[0]).toBe(word(0x20)); // the V3SlowFill tuple
    expect(words[1]).toBe(word(0x60)); // relayData offset inside it (3 head words)
    expect(words[2]).toBe(word(10)); // chainId
    expect(words[3]).toBe(word(985)); // updatedOutputAmount
    expect(words[4]).toBe(pad(addr(0xd1)).slice(2)); // relayData.depositor
    expect(words[12]).toBe(word(42)); // relayData.depositId
    expect(words[15]).toBe(word(0x180)); // message offset (12 head words)
    expect(words[16]).toBe(word(4));
    expect(words[17]).toBe(`deadbeef${"0".repeat(56)}`);
  });

  // Cross-checked once against ethers v5 `defaultAbiCoder.encode` + keccak256 (an independent ABI coder).
  it("pins the leaf hashes (regression vectors)", () => {
    expect({
      pool: hashPoolRebalanceLeaf(pool),
      refund: hashRelayerRefundLeaf(refund),
      slow: hashSlowFillLeaf(slow),
    }).toMatchInlineSnapshot(`
      {
        "pool": "0x756d07f11e3c8290dcbf84bcd933bb47e8fd7d85aebbb47435ef1bbfff07264c",
        "refund": "0xb00d477ce206bf8f190eb3d82ede8497df4ed9fa734039a9576df8a2b492fe01",
        "slow": "0xc13de46a14d11675d9b9855f48905e607ad1c73972e9b8f6f8b649406f564e0d",
      }
    `);
  });
});
