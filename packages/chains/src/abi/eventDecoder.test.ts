import { type AbiEvent, decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../artifacts.ts";
import { createEventDecoder } from "./eventDecoder.ts";
import { keccak256Hex } from "./keccak.ts";

const spokeEvents = (loadArtifact("Ethereum_SpokePool").abi as readonly AbiEvent[]).filter((e) => e.type === "event");

/** A deterministic pseudo-random value of an ABI type (seeded, so failures reproduce). */
function sample(type: string, seed: number, components?: readonly { name?: string; type: string }[]): unknown {
  const h = keccak256Hex(toHex(`${type}:${seed}`)).slice(2);
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = Number(int[2] || 256);
    const raw = BigInt.asUintN(bits, BigInt(`0x${h}`) >> BigInt(seed % 3 === 0 ? 0 : bits / 2));
    const v = int[1] === "u" ? raw : BigInt.asIntN(bits, raw);
    return bits <= 48 ? Number(v) : v;
  }
  if (type === "address") return `0x${h.slice(0, 40)}`;
  if (type === "bool") return seed % 2 === 0;
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) return `0x${h.slice(0, Number(fixed[1]) * 2)}`;
  if (type === "bytes") return `0x${h.repeat(seed % 4).slice(0, (seed % 4) * 37 * 2)}`;
  if (type === "string") return `héllo ${seed}`;
  if (type.endsWith("[]")) return [0, 1, 2].slice(0, seed % 3).map((k) => sample(type.slice(0, -2), seed + k));
  if (type === "tuple" && components) {
    return Object.fromEntries(
      components.map((c, k) => [
        c.name,
        sample(c.type, seed + k + 1, (c as never as { components?: never }).components),
      ]),
    );
  }
  throw new Error(`no sample for ${type}`);
}

function encodeLog(event: AbiEvent, seed: number) {
  const args = Object.fromEntries(
    event.inputs.map((p, k) => [p.name, sample(p.type, seed * 31 + k, (p as { components?: never }).components)]),
  );
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
  const data = encodeAbiParameters(
    event.inputs.filter((p) => !p.indexed),
    event.inputs.filter((p) => !p.indexed).map((p) => args[p.name as string]),
  );
  return { topics, data };
}

describe("createEventDecoder", () => {
  it("decodes every SpokePool event exactly as viem does", () => {
    expect(spokeEvents.length).toBeGreaterThan(10);
    for (const event of spokeEvents) {
      const decoder = createEventDecoder(event);
      for (let seed = 1; seed <= 12; seed++) {
        const { topics, data } = encodeLog(event, seed);
        const viem = decodeEventLog({ abi: [event], topics: topics as [Hex], data });
        expect(decoder.decode(topics, data), `${event.name} seed ${seed}`).toEqual(viem.args);
      }
    }
  });

  it("hands out the raw words of single-word parameters, wherever they sit", () => {
    const deposited = spokeEvents.find((e) => e.name === "FundsDeposited") as AbiEvent;
    const decoder = createEventDecoder(deposited);
    const { topics, data } = encodeLog(deposited, 5);
    const args = decoder.decode(topics, data);
    const [depositId, inputAmount, depositor, fillDeadline] = decoder.wordsOf([
      "depositId",
      "inputAmount",
      "depositor",
      "fillDeadline",
    ])(topics, data);
    expect(BigInt(`0x${depositId}`)).toBe(args.depositId);
    expect(BigInt(`0x${inputAmount}`)).toBe(args.inputAmount);
    expect(`0x${depositor}`).toBe(args.depositor);
    expect(Number(BigInt(`0x${fillDeadline}`))).toBe(args.fillDeadline);
    expect(() => decoder.wordsOf(["message"])).toThrow(/single-word/);
    expect(() => decoder.wordsOf(["nope"])).toThrow(/no parameter/);
    expect(() => decoder.wordsOf(["exclusivityDeadline"])(topics, data.slice(0, 300) as Hex)).toThrow(/shorter/);
  });

  it("hands out a dynamic bytes parameter's content, as viem decodes it", () => {
    const deposited = spokeEvents.find((e) => e.name === "FundsDeposited") as AbiEvent;
    const decoder = createEventDecoder(deposited);
    const readMessage = decoder.bytesOf("message");
    for (let seed = 1; seed <= 8; seed++) {
      const { topics, data } = encodeLog(deposited, seed);
      expect(`0x${readMessage(data)}`, `seed ${seed}`).toBe(decoder.decode(topics, data).message);
    }
    // An offset that is not a multiple of 32 (legal ABI, never emitted by solc) is read where it points, as viem does.
    const { topics, data } = encodeLog(deposited, 1);
    const head = 10 * 64; // FundsDeposited's data head: 10 words, the last the message's offset
    const offset = BigInt(`0x${data.slice(2 + head - 64, 2 + head)}`);
    const shifted =
      `0x${data.slice(2, 2 + head - 64)}${(offset + 1n).toString(16).padStart(64, "0")}00${data.slice(2 + head)}` as Hex;
    const viem = decodeEventLog({ abi: [deposited], topics: topics as [Hex], data: shifted });
    expect(`0x${readMessage(shifted)}`).toBe((viem.args as { message: Hex }).message);
    expect(decoder.decode(topics, shifted)).toEqual(viem.args);
    expect(() => decoder.bytesOf("depositId")).toThrow(/not a non-indexed bytes/);
    expect(() => decoder.bytesOf("nope")).toThrow(/no parameter/);
    const cut = encodeLog(deposited, 3).data.slice(0, -10) as Hex;
    expect(() => readMessage(cut)).toThrow(/shorter/);
  });

  it("places every single-word parameter of FilledRelay (topics and head words) correctly", () => {
    const filled = spokeEvents.find((e) => e.name === "FilledRelay") as AbiEvent;
    const decoder = createEventDecoder(filled);
    const names = filled.inputs
      .filter((p) => !p.type.startsWith("tuple") && p.type !== "bytes")
      .map((p) => p.name as string);
    const { topics, data } = encodeLog(filled, 7);
    const args = decoder.decode(topics, data);
    decoder
      .wordsOf(names)(topics, data)
      .forEach((w, k) => {
        const v = args[names[k] as string];
        expect(typeof v === "string" ? `0x${w}` : BigInt(`0x${w}`), names[k]).toBe(
          typeof v === "number" ? BigInt(v) : v,
        );
      });
  });

  it("counts a static tuple's words and a dynamic value's offset word before a later word", () => {
    const event = {
      type: "event",
      name: "Shaped",
      inputs: [
        {
          name: "t",
          type: "tuple",
          components: [
            { name: "p", type: "uint256" },
            { name: "q", type: "bytes32" },
          ],
        },
        { name: "m", type: "bytes" },
        { name: "x", type: "uint32" },
        { name: "who", type: "address", indexed: true },
      ],
    } as const satisfies AbiEvent;
    const decoder = createEventDecoder(event);
    const { topics, data } = encodeLog(event, 4);
    const args = decoder.decode(topics, data);
    const [x, who] = decoder.wordsOf(["x", "who"])(topics, data);
    expect(Number(BigInt(`0x${x}`))).toBe(args.x);
    expect(`0x${who?.slice(24)}`).toBe((args.who as string).toLowerCase());
  });

  it("rejects logs that do not fit the event", () => {
    const deposited = spokeEvents.find((e) => e.name === "FundsDeposited") as AbiEvent;
    const decoder = createEventDecoder(deposited);
    const { topics, data } = encodeLog(deposited, 3);
    expect(() => decoder.decode(topics, data.slice(0, 200) as Hex)).toThrow(/shorter/);
    expect(() => decoder.decode(topics.slice(0, 2), data)).toThrow(/topics/);
    expect(() => decoder.decode([`0x${"0".repeat(64)}`, ...topics.slice(1)], data)).toThrow(/not a FundsDeposited/);
  });
});

describe("keccak256Hex", () => {
  it("matches the known digests", () => {
    expect(keccak256Hex("0x")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(keccak256Hex(new TextEncoder().encode("abc"))).toBe(
      "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    );
  });
});
