/**
 * Test helpers of `@platform/chains` (`@platform/chains/testing`), kept out of the main entry so that
 * production code never loads them: the devnet fixture, and replayable random timings for kill tests.
 */

// Moved to kernel (its own kill tests draw from it too); kept here for the chains-based kill tests.
export { type ReplayableRandom, replayableRandom } from "@platform/kernel/testing";
export {
  type DevnetFixture,
  type DevnetFixtureOptions,
  startDevnetFixture,
  useDevnet,
} from "./devnetFixture.ts";
