/**
 * The fuzzer against the whole platform: one real `platform start` (every service, the devnet), every
 * operation of every host's served OpenAPI document, `FUZZ_RUNS` cases each (valid requests and mutations
 * of their parameters, bodies and credentials), a few operations at a time so the platform is busy. Any 5xx,
 * undocumented status, answer that breaks its documented schema or answer slower than 5 s fails; the failing
 * case is shrunk and printed with the seed that replays it.
 *
 * FUZZ_RUNS (cases per operation), FUZZ_SEED + FUZZ_PATH (replay), FUZZ_OPERATION (operationIds, comma
 * separated), FUZZ_STRICT_STATUS=false (report undocumented statuses instead of failing on them).
 *
 * Not fuzzed: the WebSocket streams (`/stream` on the trading hosts, `/v2/{iex,sip,test}` and
 * `/v1beta3/crypto/us` on the data host), which are upgrades, not documented HTTP operations, and the
 * authorization host's HTML pages, which its document leaves out.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzedPlatform, startFuzzedPlatform } from "./fuzz/fuzzedPlatform.ts";
import { fuzzOperation, type OperationReport, type PreparedOperation, prepareOperation } from "./fuzz/fuzzOperation.ts";
import { closeConnections } from "./fuzz/sendRequest.ts";

// 10 cases × 129 operations: about 140 s for the whole file on PGlite on a busy 2-core machine.
const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const STRICT_STATUS = !/^(0|false|no|off)$/i.test(process.env.FUZZ_STRICT_STATUS ?? "true");
const ONLY = process.env.FUZZ_OPERATION?.split(",").map((s) => s.trim());
/** Operations fuzzed at once: enough to keep every service busy at the same time. */
const CONCURRENCY = 4;

let platform: FuzzedPlatform;
beforeAll(async () => {
  platform = await startFuzzedPlatform();
}, 180_000);
afterAll(async () => {
  closeConnections();
  await platform?.stop();
});

/** Runs `tasks` with at most `limit` in flight. */
async function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

describe("the fuzzer", () => {
  it(`finds no 5xx, undocumented status, schema break or slow answer on any operation (FUZZ_SEED=${SEED})`, async () => {
    const started = performance.now();
    // This process's own stalls, reported beside the answers' times: a stall here is not the platform's.
    const clientDelay = monitorEventLoopDelay({ resolution: 20 });
    clientDelay.enable();
    const all = platform.hosts.flatMap((host) => host.operations.map((op) => ({ host, op })));
    const chosen = all.filter(({ op }) => !ONLY || ONLY.includes(op.operationId));
    expect(chosen.length, `no operation matches FUZZ_OPERATION=${ONLY}`).toBeGreaterThan(0);
    const options = {
      runs: RUNS,
      seed: SEED,
      path: process.env.FUZZ_PATH,
      strictStatus: STRICT_STATUS,
      maxLatencyMs: 5_000,
      timeoutMs: 15_000,
    };
    const prepared = chosen.map(({ host, op }) => prepareOperation(op, host.context));
    const run = (items: PreparedOperation[]) =>
      pooled(
        items.map((item) => () => fuzzOperation(item, options)),
        CONCURRENCY,
      );
    // Deletions last: they may remove the seeded objects the other operations' cases aim at.
    const reports: OperationReport[] = [
      ...(await run(prepared.filter(({ op }) => op.method !== "DELETE"))),
      ...(await run(prepared.filter(({ op }) => op.method === "DELETE"))),
    ];

    clientDelay.disable();
    const seconds = (performance.now() - started) / 1000;
    const cases = reports.reduce((sum, r) => sum + r.cases, 0);
    const statuses: Record<number, number> = {};
    for (const r of reports) for (const [s, n] of Object.entries(r.statuses)) statuses[+s] = (statuses[+s] ?? 0) + n;
    const undocumented = reports.flatMap((r) =>
      Object.entries(r.undocumented).map(
        ([status, request]) => `  ${r.operation}: ${status}\n    ${request.split("\n")[0]}`,
      ),
    );
    const slowest = [...reports]
      .sort((a, b) => b.slowest.ms - a.slowest.ms)
      .slice(0, 5)
      .map((r) => `  ${Math.round(r.slowest.ms)} ms ${r.slowest.request}`);
    process.stdout.write(
      `fuzz: ${reports.length} operations, ${cases} cases in ${seconds.toFixed(1)} s ` +
        `(FUZZ_RUNS=${RUNS}, FUZZ_SEED=${SEED}); answers by status ${JSON.stringify(statuses)}\n` +
        `this process's longest event-loop stall: ${Math.round(clientDelay.max / 1e6)} ms; slowest answers:\n${slowest.join("\n")}\n` +
        (undocumented.length ? `undocumented statuses (FUZZ_STRICT_STATUS off):\n${undocumented.join("\n")}\n` : ""),
    );
    const failures = reports.flatMap((r) => (r.failure ? [r.failure] : []));
    expect(failures, `\n${failures.join("\n\n")}\n`).toEqual([]);
    // fast-check stops early when interrupted (its time limit): every operation must have had its cases.
    const short = reports.filter((r) => r.cases < RUNS).map((r) => `${r.operation}: ${r.cases}`);
    expect(short, "operations with fewer cases than FUZZ_RUNS").toEqual([]);
  }, 900_000);
});
