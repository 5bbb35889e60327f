/**
 * Test helpers of the kernel (`@platform/kernel/testing`): kept out of the main entry so that production
 * code never loads them.
 */
export { createTestDatabase, type TestDatabase } from "../db/testDatabase.ts";
export { anchorDocumentsDir, readAnchorDocument } from "./anchorDocuments.ts";
export {
  type CreateKillTestDatabaseParameters,
  createKillTestDatabase,
  type KillTestChild,
  type KillTestChildEnd,
  type KillTestChildren,
  type KillTestDatabase,
  type KillTestDatabaseLocation,
  killTestChildren,
  type SpawnKillTestChildParameters,
  startKillTestChild,
} from "./killTest.ts";
export { type ReplayableRandom, replayableRandom } from "./replayableRandom.ts";
export { type StartTestServiceParameters, startTestService, type TestService } from "./startTestService.ts";
export { recordStatements, type StatementLog } from "./statementLog.ts";
