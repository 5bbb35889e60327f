import {
  type AbiFunction,
  type AbiParameter,
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  maxUint256,
  parseAbi,
  parseAbiItem,
  parseAbiParameters,
  size,
  zeroAddress,
  zeroHash,
} from "viem";

/**
 * Embedded actions of the Swap API (`POST /swap/approval`, body `{actions}`): calls that Across'
 * `MulticallHandler` makes on the destination chain right after the fill. Each action becomes a handler
 * `Call`; an action that needs a balance only known at fill time (an argument or the call value) becomes a
 * handler self-call `makeCallWithBalance`, which ORs the balance into a zeroed 32-byte word of the calldata.
 */

/** A value as the request spells it; nested arrays for array and tuple parameters (tuples positional). */
export type ActionValue = string | number | boolean | readonly ActionValue[];

/** One argument of an action. */
export interface EmbeddedActionArg {
  value: ActionValue;
  /** Use the handler's balance of `balanceSourceToken` at call time (a top-level uint256 parameter only). */
  populateDynamically?: boolean;
  /** The token whose balance fills the argument; address(0) for the native balance. null = absent (the anchor's schema declares it nullable). */
  balanceSourceToken?: string | null;
}

/** One action of the request, with the anchor's defaults (no signature, no args, value "0"). */
export interface EmbeddedAction {
  target: string;
  /** `"function deposit(address token, uint256 amount)"` or `"deposit(address,uint256)"`. */
  functionSignature?: string;
  /** A plain native transfer of `value` to `target` (no signature, no args). */
  isNativeTransfer?: boolean;
  args?: readonly EmbeddedActionArg[];
  /** Wei, decimal. */
  value?: string;
  /** Send the handler's whole native balance instead of `value`. */
  populateCallValueDynamically?: boolean;
}

/** A `MulticallHandler.Call`. */
export interface HandlerCall {
  target: Address;
  callData: Hex;
  value: bigint;
}

/** A `MulticallHandler.Replacement`: the handler's balance of `token` (address(0): native) goes to `offset`. */
export interface BalanceReplacement {
  token: Address;
  /** Byte offset in the calldata (the selector is at 0, the first head word at 4). */
  offset: bigint;
}

/** At most this many actions per request: each is a call the filler pays gas for on the destination. */
export const MAX_EMBEDDED_ACTIONS = 16;
/** At most this many arguments per action. */
export const MAX_ACTION_ARGS = 32;

export type ActionEncodingErrorType = ActionEncodingError & { name: "ActionEncodingError" };

/** An action does not encode (the service answers `ABI_ENCODING_ERROR`). */
export class ActionEncodingError extends Error {
  override name = "ActionEncodingError" as const;
  constructor(
    /** Index of the failing action in the request. */
    readonly index: number,
    /** Why, without the action prefix. */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`actions[${index}]: ${reason}`, options);
  }
}

const handlerAbi = parseAbi([
  "function drainLeftoverTokens(address token, address destination)",
  "function makeCallWithBalance(address target, bytes callData, uint256 value, (address token, uint256 offset)[] replacement)",
]);

const instructionsParams = parseAbiParameters(
  "((address target, bytes callData, uint256 value)[] calls, address fallbackRecipient)",
);

/** The MulticallHandler calls that run `actions` (in order). Throws {@link ActionEncodingError}. */
export function encodeEmbeddedActions(
  actions: readonly EmbeddedAction[],
  o: { multicallHandler: Address },
): HandlerCall[] {
  if (actions.length > MAX_EMBEDDED_ACTIONS) {
    throw new ActionEncodingError(MAX_EMBEDDED_ACTIONS, `at most ${MAX_EMBEDDED_ACTIONS} actions are allowed`);
  }
  return actions.map((action, index) => {
    try {
      return encodeAction(action, o.multicallHandler);
    } catch (e) {
      if (e instanceof Invalid) throw new ActionEncodingError(index, e.message, { cause: e.cause });
      throw e;
    }
  });
}

/** Encodes the handler's `Instructions` message (the fill's `message`). */
export function encodeMulticallMessage(calls: readonly HandlerCall[], fallbackRecipient: Address): Hex {
  return encodeAbiParameters(instructionsParams, [{ calls, fallbackRecipient }]);
}

/** Handler self-call that sends its whole balance of `token` (address(0): native) to `destination`. */
export function drainLeftoverTokensCall(multicallHandler: Address, token: Address, destination: Address): HandlerCall {
  return {
    target: multicallHandler,
    callData: encodeFunctionData({ abi: handlerAbi, functionName: "drainLeftoverTokens", args: [token, destination] }),
    value: 0n,
  };
}

/**
 * Handler self-call that calls `target` with `callData` after ORing balances into it at the replacements'
 * offsets (those words must be zero). A native replacement also makes the call value the native balance.
 */
export function makeCallWithBalanceCall(
  multicallHandler: Address,
  target: Address,
  callData: Hex,
  value: bigint,
  replacements: readonly BalanceReplacement[],
): HandlerCall {
  for (const r of replacements) {
    // The handler would revert with CalldataTooShort: fail here, where the cause is known.
    if (r.offset < 0n || r.offset + 32n > BigInt(size(callData))) {
      throw new RangeError(`replacement offset ${r.offset} is outside calldata of ${size(callData)} bytes`);
    }
  }
  return {
    target: multicallHandler,
    callData: encodeFunctionData({
      abi: handlerAbi,
      functionName: "makeCallWithBalance",
      args: [target, callData, value, replacements],
    }),
    // The inner call's value comes from the handler's own balance; the self-call carries none.
    value: 0n,
  };
}

/** Why an action is refused; `encodeEmbeddedActions` adds the action index. */
class Invalid extends Error {}

function encodeAction(action: EmbeddedAction, handler: Address): HandlerCall {
  const target = toAddress(action.target, "target");
  const value = toWei(action.value ?? "0");
  const args = action.args ?? [];
  if (!Array.isArray(args)) throw new Invalid("args must be an array");
  if (args.length > MAX_ACTION_ARGS) throw new Invalid(`at most ${MAX_ACTION_ARGS} args are allowed`);

  if (action.isNativeTransfer) {
    if ((action.functionSignature ?? "") !== "" || args.length > 0) {
      throw new Invalid("a native transfer takes no functionSignature and no args");
    }
    // The whole native balance goes by a drain: makeCallWithBalance would need calldata to hold the
    // replacement word, and a contract's receive() only runs on empty calldata.
    if (action.populateCallValueDynamically) return drainLeftoverTokensCall(handler, zeroAddress, target);
    return { target, callData: "0x", value };
  }

  const fn = parseSignature(action.functionSignature ?? "");
  if (args.length !== fn.inputs.length) {
    throw new Invalid(`${fn.name} takes ${fn.inputs.length} arguments, got ${args.length}`);
  }
  const replacements: BalanceReplacement[] = [];
  let offset = 4; // head offset of the current parameter: after the selector
  const values = fn.inputs.map((param, i) => {
    const arg = args[i];
    const at = `args[${i}]`;
    if (typeof arg !== "object" || arg === null || Array.isArray(arg)) throw new Invalid(`${at} must be {value}`);
    const here = offset;
    offset += headSize(param);
    const token = arg.balanceSourceToken == null ? undefined : toAddress(arg.balanceSourceToken, at);
    if (!arg.populateDynamically) return coerce(param, arg.value, at);
    if (token === undefined) throw new Invalid(`${at}: populateDynamically needs a balanceSourceToken`);
    // Only a head word can be patched in place, and the balance is a full word.
    if (param.type !== "uint256") {
      throw new Invalid(`${at}: populateDynamically needs a uint256 parameter, not ${param.type}`);
    }
    replacements.push({ token, offset: BigInt(here) });
    return 0n; // the handler ORs the balance in: the word must be zero
  });

  let callData: Hex;
  try {
    callData = encodeFunctionData({ abi: [fn], functionName: fn.name, args: values });
  } catch (e) {
    throw new Invalid(`cannot encode ${fn.name}: ${shortMessage(e)}`, { cause: e });
  }
  if (action.populateCallValueDynamically) {
    // A native replacement is also ORed into the calldata: point it at a zero word appended after the
    // arguments, which the target's decoder ignores. It is the real end of the calldata, not 4 + 32·args:
    // with a dynamic argument, that word would be in the argument's tail.
    replacements.push({ token: zeroAddress, offset: BigInt(size(callData)) });
    callData = concat([callData, zeroHash]);
  }
  if (replacements.length === 0) return { target, callData, value };
  return makeCallWithBalanceCall(handler, target, callData, value, replacements);
}

function parseSignature(signature: string): AbiFunction {
  if (typeof signature !== "string" || signature.trim() === "") {
    throw new Invalid("functionSignature is required unless isNativeTransfer");
  }
  const trimmed = signature.trim();
  // ethers' human-readable ABI (the anchor's) spells inline structs `tuple(...)`; abitype only knows `(...)`.
  const text = (/^function\s/.test(trimmed) ? trimmed : `function ${trimmed}`).replace(/\btuple\s*\(/g, "(");
  let item: ReturnType<typeof parseAbiItem>;
  try {
    item = parseAbiItem(text);
  } catch (e) {
    throw new Invalid(`functionSignature ${JSON.stringify(signature)} does not parse: ${shortMessage(e)}`, {
      cause: e,
    });
  }
  if (item.type !== "function") throw new Invalid(`functionSignature ${JSON.stringify(signature)} is not a function`);
  return item;
}

/** Bytes a parameter takes in the head: a dynamic one is an offset word, a static one is inline. */
function headSize(param: AbiParameter): number {
  if (isDynamic(param)) return 32;
  const array = /^(.*)\[(\d+)\]$/.exec(param.type);
  if (array) return Number(array[2]) * headSize({ ...param, type: array[1]! });
  if (param.type === "tuple") return componentsOf(param).reduce((n, c) => n + headSize(c), 0);
  return 32;
}

function isDynamic(param: AbiParameter): boolean {
  if (param.type === "bytes" || param.type === "string" || param.type.endsWith("[]")) return true;
  const array = /^(.*)\[\d+\]$/.exec(param.type);
  if (array) return isDynamic({ ...param, type: array[1]! });
  return param.type === "tuple" && componentsOf(param).some(isDynamic);
}

function componentsOf(param: AbiParameter): readonly AbiParameter[] {
  return "components" in param ? param.components : [];
}

/** The request's value as viem encodes `param`, or Invalid. `at` names the value in messages. */
function coerce(param: AbiParameter, value: unknown, at: string): unknown {
  const { type } = param;
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    const [, inner, length] = array;
    if (!Array.isArray(value)) throw new Invalid(`${at}: ${type} needs an array`);
    if (length !== "" && value.length !== Number(length)) {
      throw new Invalid(`${at}: ${type} needs ${length} elements, got ${value.length}`);
    }
    return value.map((v, i) => coerce({ ...param, type: inner! }, v, `${at}[${i}]`));
  }
  if (type === "tuple") {
    const components = componentsOf(param);
    if (!Array.isArray(value) || value.length !== components.length) {
      throw new Invalid(`${at}: a tuple of ${components.length} components needs an array of as many values`);
    }
    return components.map((c, i) => coerce(c, value[i], `${at}[${i}]`));
  }
  if (type === "address") return toAddress(value, at);
  if (type === "bool") {
    if (value === true || value === "true") return true;
    if (value === false || value === "false") return false;
    throw new Invalid(`${at}: bool needs true or false`);
  }
  if (type === "string") {
    if (typeof value !== "string") throw new Invalid(`${at}: string needs a string`);
    return value;
  }
  if (type === "bytes") {
    if (!isHex(value, { strict: true }) || value.length % 2 !== 0) throw new Invalid(`${at}: bytes needs 0x hex`);
    return value;
  }
  const bytesN = /^bytes(\d+)$/.exec(type);
  if (bytesN) {
    if (!isHex(value, { strict: true }) || value.length !== 2 + 2 * Number(bytesN[1])) {
      throw new Invalid(`${at}: ${type} needs 0x hex of ${bytesN[1]} bytes`);
    }
    return value;
  }
  const int = /^(u?)int(\d+)$/.exec(type);
  if (int) {
    const n = toInteger(value);
    if (n === undefined) throw new Invalid(`${at}: ${type} needs an integer (a decimal string above 2^53)`);
    const bits = BigInt(int[2]!);
    const [min, max] = int[1] ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
    if (n < min || n > max) throw new Invalid(`${at}: ${n} is out of range for ${type}`);
    return n;
  }
  throw new Invalid(`${at}: parameter type ${type} is not supported`);
}

/** An integer from a safe JS integer or a decimal/hex string (lengths capped: no giant BigInt parses). */
function toInteger(value: unknown): bigint | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== "string") return undefined;
  if (/^-?\d{1,78}$/.test(value)) return BigInt(value);
  if (/^0x[0-9a-fA-F]{1,64}$/.test(value)) return BigInt(value);
  return undefined;
}

/** Any case is accepted (the anchor does not require a checksum); the result is checksummed. */
function toAddress(value: unknown, at: string): Address {
  if (typeof value !== "string" || !isAddress(value, { strict: false })) {
    throw new Invalid(`${at}: ${JSON.stringify(value)} is not an address`);
  }
  return getAddress(value);
}

function toWei(value: unknown): bigint {
  if (typeof value !== "string" || !/^\d{1,78}$/.test(value) || BigInt(value) > maxUint256) {
    throw new Invalid(`value must be a non-negative decimal integer string of wei, got ${JSON.stringify(value)}`);
  }
  return BigInt(value);
}

/** viem's one-line message (its `message` adds docs links and the version). */
function shortMessage(e: unknown): string {
  if (e instanceof Error) return "shortMessage" in e && typeof e.shortMessage === "string" ? e.shortMessage : e.message;
  return String(e);
}
