import { type Address, encodeAbiParameters, type Hex } from "viem";

/** One call the MulticallHandler makes. */
export interface HandlerCall {
  target: Address;
  callData: Hex;
  value: bigint;
}

/**
 * A deposit `message` for Across' MulticallHandler (its `Instructions`): the calls it makes with the filled
 * tokens, and who gets what is left. No calls: everything goes to `fallbackRecipient`.
 */
export function multicallInstructions(fallbackRecipient: Address, calls: readonly HandlerCall[] = []): Hex {
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          {
            name: "calls",
            type: "tuple[]",
            components: [
              { name: "target", type: "address" },
              { name: "callData", type: "bytes" },
              { name: "value", type: "uint256" },
            ],
          },
          { name: "fallbackRecipient", type: "address" },
        ],
      },
    ],
    [{ calls, fallbackRecipient }],
  );
}
