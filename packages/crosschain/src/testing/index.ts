/**
 * Test helpers of `@platform/crosschain` (`@platform/crosschain/testing`), kept out of the main entry so
 * that production code never loads them: SpokePool deposits and fills on the devnet fixture, the relayer's
 * on-chain and database checks, and a crosschain service with warm quotes.
 */
export * from "../quotes/testing.ts";
export * from "../relayer/testSupport.ts";
export * from "./multicallInstructions.ts";
export * from "./offlineSpokeChain.ts";
export * from "./spokePoolActions.ts";
