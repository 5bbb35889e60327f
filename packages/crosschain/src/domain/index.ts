/** Pure domain logic of the crosschain service (no I/O). */
export * from "./depositStatus.ts";
export * from "./fees/index.ts";
export * from "./relayHash.ts";
