/**
 * Test helpers of `@platform/chains` (`@platform/chains/testing`), kept out of the main entry so that
 * production code never loads them: the devnet fixture, and replayable random timings for kill tests.
 */
export {
  type DevnetFixture,
  type DevnetFixtureOptions,
  startDevnetFixture,
  useDevnet,
} from "./devnetFixture.ts";
export { type ReplayableRandom, replayableRandom } from "./replayableRandom.ts";
