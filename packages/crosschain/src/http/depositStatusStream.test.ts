/**
 * `GET /api/deposits/status/stream` on a server of its own (the route as src/index.ts wires it, without the
 * bearer check): the current status first, then live changes as the indexer store records them; a
 * reconnection with Last-Event-ID gets exactly what was written while it was away; filters; 400s in the
 * service's error format; the OpenAPI document passes Spectral; closing the server ends open streams.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  closeGracefully,
  createHttpServer,
  createLogger,
  type HttpServer,
  kernelMigrations,
  migrate,
} from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFindings, lintOpenApi } from "../../../../e2e/support/openapiLint.ts";
import { crosschainService } from "../index.ts";
import { createIndexerStore, type IndexerStore } from "../store/indexerStore.ts";
import {
  addr,
  b32,
  depositTxOf,
  emptyRange,
  fillOf,
  slowRequestOf,
  type TestDeposit,
  withDeposits,
} from "../testing/statusFixtures.ts";
import { type DepositStatusEventData, registerDepositStatusStreamRoute } from "./depositStatusStream.ts";
import { formatError } from "./errorFormat.ts";
import { openapiTags } from "./openapiTags.ts";
import { ServiceApiError } from "./schemas.ts";

const ORIGIN = 10;
const DEST = 8453;
const X = addr(0xaa01);
const Y = addr(0xaa02);
const later = Math.floor(Date.now() / 1000) + 3600;
const deposit = (depositId: number, depositor: `0x${string}`, blockNumber: bigint): TestDeposit => ({
  originChainId: ORIGIN,
  destinationChainId: DEST,
  depositId,
  key: depositId,
  fillDeadline: later,
  depositor,
  blockNumber,
});

let t: TestDatabase;
let app: HttpServer;
let url: string;
let store: IndexerStore;
const next = { [ORIGIN]: 0n, [DEST]: 0n } as Record<number, bigint>;

/** Appends the next block to `chainId` with `parts` (deposits, fills, slow requests), all in that block. */
async function append(
  chainId: number,
  parts: { deposits?: TestDeposit[]; fills?: ReturnType<typeof fillOf>[]; slow?: ReturnType<typeof slowRequestOf>[] },
) {
  const n = next[chainId] as bigint;
  const inBlock = <T extends { blockNumber: bigint }>(xs: T[] = []) => xs.map((x) => ({ ...x, blockNumber: n }));
  const range = withDeposits(emptyRange(n), inBlock(parts.deposits));
  const ok = await store.appendRange(chainId, n, n, {
    ...range,
    fills: inBlock(parts.fills),
    slowFills: inBlock(parts.slow),
  });
  expect(ok).toBe(true);
  next[chainId] = n + 1n;
}

interface StatusEvent {
  id: string;
  data: DepositStatusEventData;
}

/** An open stream: `take(n)` waits for its next n status events. */
async function open(query: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/deposits/status/stream?${query}`, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: StatusEvent[] = [];
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => !l.startsWith(":") && l.includes(": "))
            .map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]),
        );
        if (fields.event === "status")
          events.push({ id: fields.id as string, data: JSON.parse(fields.data as string) });
      }
    }
  })();
  let taken = 0;
  return {
    async take(n: number, timeoutMs = 5_000): Promise<StatusEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (events.length < taken + n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} events, got ${events.slice(taken).length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const out = events.slice(taken, taken + n);
      taken += n;
      return out;
    },
    /** Events beyond those taken, after waiting a little. */
    async extra(waitMs = 300) {
      await new Promise((r) => setTimeout(r, waitMs));
      return events.slice(taken);
    },
    ended: pump,
    close() {
      controller.abort();
    },
  };
}

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
  store = createIndexerStore(t.db);
  await store.startOver(ORIGIN, b32(0x5b), b32(0x6e), 0n);
  await store.startOver(DEST, b32(0x5c), b32(0x6f), 0n);
  next[ORIGIN] = 0n;
  next[DEST] = 0n;
  app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    bodyLimit: 1_000_000,
    formatError,
    openapi: {
      title: "Crosschain Transfer API",
      version: "1.0.0",
      description: "The deposit status stream alone.",
      tags: openapiTags,
      errors: { name: "ServiceApiError", schema: ServiceApiError },
    },
  });
  await app.register(
    async (api) => {
      registerDepositStatusStreamRoute(api.withTypeProvider<TypeBoxTypeProvider>(), {
        db: t.db,
        logger: createLogger({ level: "silent" }),
        pollIntervalMs: 100,
      });
    },
    { prefix: "/api" },
  );
  await app.listen({ host: "127.0.0.1", port: 0 });

  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  await closeGracefully(app, 1_000);
  await t?.drop();
});

const P1 = deposit(1, X, 1n);
const P2 = deposit(2, X, 2n);
const P3 = deposit(3, Y, 2n);

describe("the deposit status stream", () => {
  it("answers 400 in the service's format without a filter or with half of one", async () => {
    const get = async (q: string) => {
      const res = await fetch(`${url}/api/deposits/status/stream${q}`);
      return { status: res.status, body: await res.json() };
    };
    const none = await get("");
    expect(none).toMatchObject({ status: 400, body: { type: "ServiceApiError", code: "MISSING_PARAM", status: 400 } });
    expect((await get(`?originChainId=${ORIGIN}`)).body).toMatchObject({ code: "MISSING_PARAM", param: "depositId" });
    expect((await get("?depositor=0x12")).body).toMatchObject({ status: 400, code: "INVALID_PARAM" });
    expect((await get(`?depositTxnRef=${b32(1)}&lastEventId=x`)).status).toBe(400);
  });

  it("sends the current status of each matching deposit first, then its changes live", async () => {
    await append(ORIGIN, { deposits: [P1] });
    await append(DEST, { slow: [slowRequestOf(P1, b32(0x51), 1n)] });
    const s = await open(`depositor=${X}`);
    const [current] = await s.take(1);
    expect(current?.data).toMatchObject({
      originChainId: ORIGIN,
      depositId: "1",
      depositTxnRef: depositTxOf(P1),
      status: "slowFillRequested",
      fillTxnRef: null,
      depositRefundTxnRef: null,
      cause: "indexer",
      at: expect.any(String),
    });
    await append(DEST, { fills: [fillOf(P1, b32(0x52), 2n, 2)] });
    const [filled] = await s.take(1);
    expect(filled?.data).toMatchObject({ depositId: "1", status: "filled", fillTxnRef: b32(0x52) });
    expect(BigInt(filled?.id as string)).toBeGreaterThan(BigInt(current?.id as string));
    expect(await s.extra()).toEqual([]);
    s.close();
  });

  it("resumes after Last-Event-ID with what was written while disconnected, and nothing else", async () => {
    const s = await open(`depositor=${X}`);
    const [last] = await s.take(1);
    s.close();
    // While away: a new deposit of X, one of Y (not followed), and the fill of X's new deposit.
    await append(ORIGIN, { deposits: [P2, P3] });
    await append(DEST, { fills: [fillOf(P2, b32(0x53), 3n)] });
    const again = await open(`depositor=${X}`, { "last-event-id": last?.id as string });
    const missed = await again.take(2);
    expect(missed.map((e) => [e.data.depositId, e.data.status])).toEqual([
      ["2", "pending"],
      ["2", "filled"],
    ]);
    expect(await again.extra()).toEqual([]);
    again.close();
    // The query parameter resumes alike.
    const byQuery = await open(`depositor=${X}&lastEventId=${last?.id}`);
    expect((await byQuery.take(2)).map((e) => e.id)).toEqual(missed.map((e) => e.id));
    byQuery.close();
  });

  it("filters by origin chain and deposit id, by deposit transaction, and by a comma list of depositors", async () => {
    const one = await open(`originChainId=${ORIGIN}&depositId=3`);
    expect((await one.take(1)).map((e) => [e.data.depositId, e.data.status])).toEqual([["3", "pending"]]);
    const byTx = await open(`depositTxnRef=${depositTxOf(P2)}`);
    expect((await byTx.take(1)).map((e) => [e.data.depositId, e.data.status])).toEqual([["2", "filled"]]);
    const both = await open(`depositor=${X},${Y}`);
    expect((await both.take(3)).map((e) => e.data.depositId).sort()).toEqual(["1", "2", "3"]);
    await append(DEST, { fills: [fillOf(P3, b32(0x54), 4n)] });
    expect((await one.take(1)).map((e) => [e.data.depositId, e.data.status])).toEqual([["3", "filled"]]);
    expect((await both.take(1)).map((e) => e.data.depositId)).toEqual(["3"]);
    expect(await byTx.extra()).toEqual([]);
    // depositAddress (as /deposit/status names the address deposits come from) is one more depositor.
    const byAddress = await open(`depositAddress=${X}`);
    expect((await byAddress.take(1)).length).toBe(1);
    for (const s of [one, byTx, both, byAddress]) s.close();
  });

  it("documents the route so that spectral:oas finds nothing", async () => {
    const document = await (await fetch(`${url}/openapi.json`)).json();
    expect(document.paths["/api/deposits/status/stream"].get.operationId).toBe("streamDepositStatus");
    const findings = await lintOpenApi(document);
    expect(findings, formatFindings(findings)).toEqual([]);
  });

  it("ends open streams when the server closes", async () => {
    const s = await open(`depositor=${X}`);
    await s.take(2);
    const started = Date.now();
    // The kernel's shutdown path; its grace only bounds connections the test's HTTP client keeps unused.
    const closing = closeGracefully(app, 1_000);
    await s.ended;
    expect(Date.now() - started).toBeLessThan(500);
    await closing;
  });
});
