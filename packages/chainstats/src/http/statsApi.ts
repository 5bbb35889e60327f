/** `GET /v2/api?module=stats&action=<daily action>&chainid&startdate&enddate&sort&apikey`. */
import {
  type ApiKeyStore,
  type FailedCredentials,
  type HttpServer,
  type RateCounter,
  TOO_MANY_FAILURES_MESSAGE,
} from "@platform/kernel";
import { Type } from "typebox";
import { DAILY_ACTIONS, isDailyAction } from "../domain/dailyStats.ts";
import { parseUtcDate } from "../domain/dates.ts";
import { planOf } from "../domain/plans.ts";
import type { BlocksRepository } from "../store/blocksRepository.ts";
import { ERRORS, noRecords, notOk } from "./envelope.ts";
import { statsTag } from "./openapiTags.ts";

const MAX_RANGE_DAYS = 36_600;

const Query = Type.Object({
  apikey: Type.Optional(
    Type.String({ description: "Your API key (`platform keys create --service chainstats --plan standard`)." }),
  ),
  chainid: Type.Optional(Type.String({ description: "Chain id; default 1. See /v2/chainlist.", default: "1" })),
  module: Type.Optional(Type.String({ description: "Must be `stats`." })),
  action: Type.Optional(Type.String({ description: `One of ${DAILY_ACTIONS.join(", ")}.` })),
  startdate: Type.Optional(Type.String({ description: "First day, yyyy-MM-dd (UTC), inclusive." })),
  enddate: Type.Optional(Type.String({ description: "Last day, yyyy-MM-dd (UTC), inclusive." })),
  sort: Type.Optional(Type.String({ description: "`asc` (oldest first, default) or `desc`." })),
});

const Envelope = Type.Object(
  {
    status: Type.String(),
    message: Type.String(),
    result: Type.Union([
      Type.String(),
      Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]))),
    ]),
  },
  {
    examples: [
      {
        status: "1",
        message: "OK",
        result: [
          { UTCDate: "2026-01-01", unixTimeStamp: "1767225600", transactionCount: 1_204_312 },
          { UTCDate: "2026-01-02", unixTimeStamp: "1767312000", transactionCount: 1_187_950 },
        ],
      },
      { status: "0", message: "NOTOK", result: ERRORS.invalidKey },
    ],
  },
);

export interface StatsApiDependencies {
  apiKeys: ApiKeyStore;
  rateCounter: RateCounter;
  /**
   * Invalid keys per client address (kernel's limit): over it, HTTP 429 with `Retry-After` and the envelope,
   * before the key is looked up (the one error of this API that is not HTTP 200: clients must back off).
   */
  failedCredentials: FailedCredentials;
  repository: BlocksRepository;
  /** Chain ids this deployment indexes. */
  chainIds: () => number[];
}

/** `ok` when the call may proceed, else the Etherscan error text. */
async function checkLimits(rateCounter: RateCounter, keyId: string, plan: string | null): Promise<string | undefined> {
  const limits = planOf(plan);
  const nowMs = Date.now();
  const second = Math.floor(nowMs / 1000);
  if ((await rateCounter.increment(`chainstats:${keyId}:s:${second}`, 2)) > limits.perSecond) {
    return ERRORS.perSecond(limits.perSecond);
  }
  const day = new Date(nowMs).toISOString().slice(0, 10);
  const used = await rateCounter.increment(`chainstats:${keyId}:d:${day}`, 90_000);
  if (used > limits.perDay) return ERRORS.perDay(used, limits.perDay);
  return undefined;
}

export function registerStatsApi(app: HttpServer, deps: StatsApiDependencies) {
  app.get(
    "/v2/api",
    {
      schema: {
        operationId: "getStats",
        tags: [statsTag.name],
        summary: "Daily chain statistics (Etherscan API V2 module=stats)",
        description:
          'Errors are HTTP 200 with `status: "0"`, `message: "NOTOK"` and the error text in `result`. ' +
          "Days without indexed blocks have no record; an empty range answers `No records found`.",
        querystring: Query,
        response: { 200: Envelope, 429: Envelope },
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (!q.apikey) return notOk(ERRORS.missingKey);
      const wait = await deps.failedCredentials.retryAfterSec(request.ip);
      if (wait > 0) return reply.code(429).header("Retry-After", String(wait)).send(notOk(TOO_MANY_FAILURES_MESSAGE));
      const key = await deps.apiKeys.verify("chainstats", q.apikey);
      if (!key) {
        await deps.failedCredentials.recordFailure(request.ip);
        return notOk(ERRORS.invalidKey);
      }
      const limited = await checkLimits(deps.rateCounter, key.id, key.plan);
      if (limited) return notOk(limited);

      const chainId =
        q.chainid === undefined || q.chainid === "" ? 1 : /^\d{1,15}$/.test(q.chainid) ? Number(q.chainid) : NaN;
      if (!deps.chainIds().includes(chainId)) return notOk(ERRORS.chainId);
      if (q.module !== "stats" || !q.action || !isDailyAction(q.action)) return notOk(ERRORS.action);
      if (!planOf(key.plan).pro) return notOk(ERRORS.pro);

      if (!q.startdate) return notOk(ERRORS.missingDate("startdate"));
      if (!q.enddate) return notOk(ERRORS.missingDate("enddate"));
      const start = parseUtcDate(q.startdate);
      if (!start) return notOk(ERRORS.invalidDate("startdate"));
      const end = parseUtcDate(q.enddate);
      if (!end) return notOk(ERRORS.invalidDate("enddate"));
      if (start > end) return notOk(ERRORS.dateOrder);
      if ((Date.parse(end) - Date.parse(start)) / 86_400_000 >= MAX_RANGE_DAYS)
        return notOk(ERRORS.rangeTooLarge(MAX_RANGE_DAYS));
      const sort = q.sort === undefined || q.sort === "" ? "asc" : q.sort;
      if (sort !== "asc" && sort !== "desc") return notOk(ERRORS.sort);

      const records = await deps.repository.dailyRecords(chainId, q.action, start, end, sort);
      if (records.count === 0) return noRecords();
      // The records arrive as finished JSON from the rollup rows; wrap them without re-parsing.
      return reply
        .type("application/json; charset=utf-8")
        .send(`{"status":"1","message":"OK","result":${records.json}}` as never);
    },
  );
}
