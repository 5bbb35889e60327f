/**
 * How the crosschain API reads request bodies (`POST /swap/approval`): as the Across API does. Its body schema
 * is a superstruct `type()`, which ignores undeclared fields (across-protocol/frontend `api/swap/_utils.ts`),
 * so they are dropped here; its `optional()`/`defaulted()` fields take `undefined` only, so `null` stays refused.
 * A body without `application/json` stays a 415: Vercel's runtime does not parse it as JSON
 * (vercel/vercel `packages/node/src/serverless-functions/helpers.ts`), and the anchor then quotes as if no
 * actions were sent, which would silently drop a caller's actions.
 */
import type { BodyLeniency } from "@platform/kernel";

export const acrossRequestBodies: BodyLeniency = { ignoreUnknownFields: true };
