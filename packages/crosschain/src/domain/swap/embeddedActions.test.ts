import {
  type Address,
  decodeAbiParameters,
  decodeFunctionData,
  type Hex,
  parseAbi,
  parseAbiParameters,
  size,
  slice,
  zeroAddress,
  zeroHash,
} from "viem";
import { describe, expect, it } from "vitest";
import {
  ActionEncodingError,
  drainLeftoverTokensCall,
  type EmbeddedAction,
  encodeEmbeddedActions,
  encodeMulticallMessage,
  type HandlerCall,
  MAX_ACTION_ARGS,
  MAX_EMBEDDED_ACTIONS,
  makeCallWithBalanceCall,
} from "./embeddedActions.ts";

const handler: Address = "0x924a9f036260DdD5808007E1AA95f08eD08aA569";
const usdc: Address = "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85";
const vault: Address = "0x1111111111111111111111111111111111111111";
const alice: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const handlerAbi = parseAbi([
  "function drainLeftoverTokens(address token, address destination)",
  "function makeCallWithBalance(address target, bytes callData, uint256 value, (address token, uint256 offset)[] replacement)",
]);

const encode = (actions: EmbeddedAction[]): HandlerCall[] =>
  encodeEmbeddedActions(actions, { multicallHandler: handler });
const encodeOne = (action: EmbeddedAction): HandlerCall => encode([action])[0]!;

/** The makeCallWithBalance arguments of a handler self-call. */
function unwrap(call: HandlerCall) {
  expect(call.target).toBe(handler);
  expect(call.value).toBe(0n);
  const { functionName, args } = decodeFunctionData({ abi: handlerAbi, data: call.callData });
  expect(functionName).toBe("makeCallWithBalance");
  const [target, callData, value, replacements] = args as readonly [
    Address,
    Hex,
    bigint,
    readonly { token: Address; offset: bigint }[],
  ];
  return { target, callData, value, replacements };
}

function refusal(actions: EmbeddedAction[]): ActionEncodingError {
  try {
    encode(actions);
  } catch (e) {
    expect(e).toBeInstanceOf(ActionEncodingError);
    return e as ActionEncodingError;
  }
  throw new Error("the actions were accepted");
}

describe("encodeEmbeddedActions", () => {
  it("encodes a plain call that decodes back to its arguments", () => {
    const action: EmbeddedAction = {
      target: vault.toUpperCase().replace("0X", "0x"), // any case is accepted
      functionSignature: "function deposit(address token, uint256 amount)",
      args: [{ value: usdc.toLowerCase() }, { value: "1000000" }],
      value: "5",
    };
    const call = encodeOne(action);
    expect(call.target).toBe(vault);
    expect(call.value).toBe(5n);
    const decoded = decodeFunctionData({ abi: parseAbi(["function deposit(address, uint256)"]), data: call.callData });
    expect(decoded.args).toEqual([usdc, 1_000_000n]);
    // The bare form and a JS number give the same calldata.
    expect(
      encodeOne({ ...action, functionSignature: "deposit(address,uint256)", args: [{ value: usdc }, { value: 1e6 }] }),
    ).toEqual(call);
  });

  it("encodes nested arrays and tuples positionally", () => {
    const abi = parseAbi(["function route((address to, uint256[] amounts)[] legs, bytes32 tag, bool flag, int8 k)"]);
    const tag = `0x${"ab".repeat(32)}` as Hex;
    const call = encodeOne({
      target: vault,
      functionSignature: "function route((address to, uint256[] amounts)[] legs, bytes32 tag, bool flag, int8 k)",
      args: [
        {
          value: [
            [alice, ["1", 2]],
            [vault, []],
          ],
        },
        { value: tag },
        { value: "true" },
        { value: -128 },
      ],
    });
    expect(call.value).toBe(0n);
    expect(decodeFunctionData({ abi, data: call.callData }).args).toEqual([
      [
        { to: alice, amounts: [1n, 2n] },
        { to: vault, amounts: [] },
      ],
      tag,
      true,
      -128,
    ]);
  });

  it("accepts ethers' `tuple(...)` spelling of an inline struct", () => {
    const a = encodeOne({
      target: vault,
      functionSignature: "function f(tuple(address a, uint256 b) t)",
      args: [{ value: [alice, 7] }],
    });
    const b = encodeOne({ target: vault, functionSignature: "f((address,uint256))", args: [{ value: [alice, 7] }] });
    expect(a).toEqual(b);
  });

  it("populateDynamically wraps the call in makeCallWithBalance with the arg's word zeroed", () => {
    const [call] = encode([
      {
        target: usdc,
        functionSignature: "function transfer(address to, uint256 amount)",
        args: [{ value: alice }, { value: "123", populateDynamically: true, balanceSourceToken: usdc }],
        value: "0",
      },
    ]);
    const inner = unwrap(call!);
    expect(inner.target).toBe(usdc);
    expect(inner.value).toBe(0n);
    expect(inner.replacements).toEqual([{ token: usdc, offset: 4n + 32n * 1n }]);
    expect(slice(inner.callData, 36, 68)).toBe(zeroHash); // the given "123" is not encoded: the handler ORs
    const decoded = decodeFunctionData({
      abi: parseAbi(["function transfer(address, uint256)"]),
      data: inner.callData,
    });
    expect(decoded.args).toEqual([alice, 0n]);
  });

  it("gives each dynamic arg its head word, 4 + 32·i, past a dynamic argument too", () => {
    const [call] = encode([
      {
        target: vault,
        functionSignature: "function f(bytes data, uint256 a, address who, uint256 b)",
        args: [
          { value: "0xdeadbeef" },
          { value: 0, populateDynamically: true, balanceSourceToken: usdc },
          { value: alice },
          { value: 0, populateDynamically: true, balanceSourceToken: zeroAddress }, // native balance
        ],
      },
    ]);
    const inner = unwrap(call!);
    expect(inner.replacements).toEqual([
      { token: usdc, offset: 36n },
      { token: zeroAddress, offset: 4n + 32n * 3n },
    ]);
    expect(slice(inner.callData, 36, 68)).toBe(zeroHash);
    expect(slice(inner.callData, 100, 132)).toBe(zeroHash);
  });

  it("counts a static tuple before a dynamic arg as the words it takes in the head", () => {
    const [call] = encode([
      {
        target: vault,
        functionSignature: "function f((uint256 x, uint256 y) p, uint256 amount)",
        args: [{ value: [1, 2] }, { value: 0, populateDynamically: true, balanceSourceToken: usdc }],
      },
    ]);
    expect(unwrap(call!).replacements).toEqual([{ token: usdc, offset: 4n + 64n }]);
  });

  it("populateCallValueDynamically replaces a zero word appended after the arguments", () => {
    const abi = parseAbi(["function depositETH(address, address onBehalfOf, uint16 referralCode)"]);
    const call = encodeOne({
      target: vault,
      functionSignature: "function depositETH(address, address onBehalfOf, uint16 referralCode)",
      args: [{ value: zeroAddress }, { value: alice }, { value: 0 }],
      value: "7",
      populateCallValueDynamically: true,
    });
    const inner = unwrap(call);
    expect(inner.target).toBe(vault);
    expect(inner.value).toBe(7n); // the handler overwrites it with its native balance
    expect(inner.replacements).toEqual([{ token: zeroAddress, offset: 100n }]);
    expect(size(inner.callData)).toBe(132);
    expect(slice(inner.callData, 100)).toBe(zeroHash);
    expect(decodeFunctionData({ abi, data: inner.callData }).args).toEqual([zeroAddress, alice, 0]);
  });

  it("puts the native replacement at the real end of calldata with a dynamic argument", () => {
    const inner = unwrap(
      encodeOne({
        target: vault,
        functionSignature: "function stake(bytes data)",
        args: [{ value: `0x${"11".repeat(40)}` }],
        populateCallValueDynamically: true,
      }),
    );
    // selector + offset + length + 2 data words = 132; 4 + 32·1 would land on the length word.
    expect(inner.replacements).toEqual([{ token: zeroAddress, offset: 132n }]);
    expect(slice(inner.callData, 132)).toBe(zeroHash);
  });

  it("encodes a native transfer, and a dynamic one as a native drain", () => {
    expect(encodeOne({ target: alice, isNativeTransfer: true, value: "1000" })).toEqual({
      target: alice,
      callData: "0x",
      value: 1000n,
    });
    const drain = encodeOne({ target: alice, isNativeTransfer: true, populateCallValueDynamically: true });
    expect(drain).toEqual(drainLeftoverTokensCall(handler, zeroAddress, alice));
    expect(decodeFunctionData({ abi: handlerAbi, data: drain.callData }).args).toEqual([zeroAddress, alice]);
  });

  it("keeps the order of the actions", () => {
    const calls = encode([
      { target: alice, isNativeTransfer: true, value: "1" },
      { target: vault, isNativeTransfer: true, value: "2" },
    ]);
    expect(calls.map((c) => [c.target, c.value])).toEqual([
      [alice, 1n],
      [vault, 2n],
    ]);
  });
});

describe("encodeEmbeddedActions refuses", () => {
  const ok: EmbeddedAction = { target: alice, isNativeTransfer: true, value: "1" };
  const transfer = (args: EmbeddedAction["args"], more?: Partial<EmbeddedAction>): EmbeddedAction => ({
    target: usdc,
    functionSignature: "function transfer(address to, uint256 amount)",
    args,
    ...more,
  });

  it.each<[string, EmbeddedAction, RegExp]>([
    ["an unparsable signature", { target: vault, functionSignature: "function deposit(address", args: [] }, /parse/],
    ["an unknown type", { target: vault, functionSignature: "f(foo)", args: [{ value: 1 }] }, /parse/],
    ["a missing signature", { target: vault, args: [] }, /functionSignature is required/],
    ["too few args", transfer([{ value: alice }]), /takes 2 arguments, got 1/],
    ["too many args", transfer([{ value: alice }, { value: 1 }, { value: 2 }]), /takes 2 arguments, got 3/],
    ["a bad address", transfer([{ value: "0x1234" }, { value: 1 }]), /args\[0\].*not an address/],
    ["a bad target", { ...transfer([{ value: alice }, { value: 1 }]), target: "vault" }, /target.*not an address/],
    ["a negative uint", transfer([{ value: alice }, { value: "-1" }]), /args\[1\].*out of range for uint256/],
    ["a fractional uint", transfer([{ value: alice }, { value: 1.5 }]), /args\[1\].*needs an integer/],
    ["an unsafe JS number", transfer([{ value: alice }, { value: 2 ** 60 }]), /decimal string/],
    ["a uint over its size", { target: vault, functionSignature: "f(uint8)", args: [{ value: 256 }] }, /out of range/],
    ["a non-bool", { target: vault, functionSignature: "f(bool)", args: [{ value: "yes" }] }, /bool/],
    ["a short bytes32", { target: vault, functionSignature: "f(bytes32)", args: [{ value: "0x12" }] }, /32 bytes/],
    [
      "a tuple of the wrong size",
      { target: vault, functionSignature: "f((uint256,uint256))", args: [{ value: [1] }] },
      /tuple/,
    ],
    [
      "populateDynamically without balanceSourceToken",
      transfer([{ value: alice }, { value: 0, populateDynamically: true }]),
      /balanceSourceToken/,
    ],
    [
      "populateDynamically on a dynamic type",
      {
        target: vault,
        functionSignature: "f(bytes)",
        args: [{ value: "0x", populateDynamically: true, balanceSourceToken: usdc }],
      },
      /uint256 parameter, not bytes/,
    ],
    [
      "populateDynamically on a uint256 array",
      {
        target: vault,
        functionSignature: "f(uint256[])",
        args: [{ value: [], populateDynamically: true, balanceSourceToken: usdc }],
      },
      /not uint256\[\]/,
    ],
    ["a negative value", { ...ok, value: "-1" }, /value must be/],
    ["a decimal value", { ...ok, value: "1.5" }, /value must be/],
    ["a native transfer with a signature", { ...ok, functionSignature: "f()" }, /native transfer/],
  ])("%s", (_, action, reason) => {
    const e = refusal([ok, action]);
    expect(e.name).toBe("ActionEncodingError");
    expect(e.index).toBe(1);
    expect(e.message).toMatch(/^actions\[1\]: /);
    expect(e.reason).toMatch(reason);
  });

  it("more than 16 actions, or 32 args", () => {
    expect(refusal(Array.from({ length: MAX_EMBEDDED_ACTIONS + 1 }, () => ok)).index).toBe(16);
    expect(encode(Array.from({ length: MAX_EMBEDDED_ACTIONS }, () => ok))).toHaveLength(16);
    const n = MAX_ACTION_ARGS + 1;
    const e = refusal([
      { target: vault, functionSignature: `f(${Array(n).fill("uint8").join(",")})`, args: Array(n).fill({ value: 1 }) },
    ]);
    expect(e.index).toBe(0);
    expect(e.reason).toMatch(/at most 32 args/);
  });
});

describe("handler calls and message", () => {
  it("encodeMulticallMessage round-trips through the Instructions ABI", () => {
    const calls = encode([{ target: alice, isNativeTransfer: true, value: "1" }, transferAll(alice)]);
    const message = encodeMulticallMessage(calls, vault);
    const [decoded] = decodeAbiParameters(
      parseAbiParameters("((address target, bytes callData, uint256 value)[] calls, address fallbackRecipient)"),
      message,
    );
    expect(decoded).toEqual({ calls, fallbackRecipient: vault });
  });

  it("makeCallWithBalanceCall refuses an offset outside the calldata", () => {
    const data = `0x${"00".repeat(36)}` as Hex;
    expect(() => makeCallWithBalanceCall(handler, usdc, data, 0n, [{ token: usdc, offset: 4n }])).not.toThrow();
    expect(() => makeCallWithBalanceCall(handler, usdc, data, 0n, [{ token: usdc, offset: 5n }])).toThrow(RangeError);
  });
});

function transferAll(to: Address): EmbeddedAction {
  return {
    target: usdc,
    functionSignature: "transfer(address,uint256)",
    args: [{ value: to }, { value: "0", populateDynamically: true, balanceSourceToken: usdc }],
  };
}
