/**
 * Outgoing webhooks of the wearables service (`npm run bench webhooks`), on PGlite and on PostgreSQL (when the
 * local server answers; `BENCH_DRIVERS` chooses):
 *
 * - `delivery`: `BENCH_ENDPOINTS` (100) endpoints, all on one receiver server in this process (one path each,
 *   answering 200 at once, recording arrivals), and `BENCH_MESSAGES` (50) messages written through the outbox's
 *   `emit`, one a transaction, as fast as they commit, in `sender.ts`'s process, where a kernel job worker serves
 *   the delivery queue with the production defaults (32 attempts in flight, 4 per endpoint) as `platform start`
 *   does: deliveries/s (first commit to last arrival) and latency from the message's commit to its arrival at
 *   the receiver (p50/p99, a backlog at this burst). Then `BENCH_LATENCY_MESSAGES` (20) messages on a pace of
 *   `BENCH_LATENCY_LOAD` (0.5) of the measured throughput: latency when the queue keeps up. Baseline: the same
 *   bodies to the same paths by a bare loop with as many requests in flight (`BENCH_CONCURRENCY`, 32; node:http
 *   with a keep-alive agent), no database, no signing, on the same pace; the ratio is ours/baseline deliveries/s.
 * - `import`: a `BENCH_IMPORT_DAYS` (90) day Apple Health export of the demo person (`writeDemoExport`, written
 *   once into the temp directory) through the import job, with no endpoint and with one that wants every event
 *   (no delivery worker: the outbox's writes alone), `BENCH_IMPORT_ROUNDS` (2) each, alternating, each on a fresh
 *   database: samples/s both ways and the ratio (with/without).
 *
 * `BENCH_PARTS` (`delivery,import`) picks parts. Results: `bench/results/webhooks.json`.
 */
import { createWriteStream, existsSync, renameSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeDemoExport } from "../../packages/wearables/src/demo/demoData.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { type LatencySummary, summarize } from "../lib/latency.ts";
import { runLoadScript } from "../lib/processes.ts";
import { writeResults } from "../lib/results.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 100);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 50);
const LATENCY_MESSAGES = Number(process.env.BENCH_LATENCY_MESSAGES ?? 20);
const LATENCY_LOAD = Number(process.env.BENCH_LATENCY_LOAD ?? 0.5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const IMPORT_DAYS = Number(process.env.BENCH_IMPORT_DAYS ?? 90);
const IMPORT_ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2);
const parts = (process.env.BENCH_PARTS ?? "delivery,import").split(",");
const wanted = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",") as Driver[];
const drivers: Driver[] = [];
for (const d of wanted) {
  if (d === "postgres" && !(await benchDatabase("webhooks").preparePostgres())) {
    process.stdout.write("  PostgreSQL does not answer: PGlite only\n");
    continue;
  }
  drivers.push(d);
}

/**
 * The receivers: `BENCH_RECEIVERS` (4) servers, the endpoints spread over them a path each (the delivery client
 * keeps at most 16 sockets per origin, as does any one receiver's host); each arrival's message number and time.
 */
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 4);
const arrivals: { n: number; at: number; path: string }[] = [];
const origins: string[] = [];
const servers = [];
for (let r = 0; r < RECEIVERS; r++) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const n = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { n: number } }).data.n;
      arrivals.push({ n, at, path: req.url ?? "" });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  servers.push(server);
}
const origin = origins.join(",");

interface RunFigures {
  messages: number;
  deliveries: number;
  duplicates: number;
  seconds: number;
  deliveriesPerSec: number;
  /** Commit (or availability, for the baseline) → arrival, ms. */
  latency: LatencySummary;
  attempts?: number;
}

async function run(mode: "service" | "baseline", driver: Driver, messages: number, paceMs: number) {
  arrivals.length = 0;
  const got = (await runLoadScript(here("./sender.ts"), origin, {
    BENCH_MODE: mode,
    BENCH_DRIVER: driver,
    BENCH_ENDPOINTS: String(ENDPOINTS),
    BENCH_MESSAGES: String(messages),
    BENCH_PACE_MS: String(paceMs),
    BENCH_CONCURRENCY: String(CONCURRENCY),
  })) as unknown as { commitAt: number[]; attempts?: number };
  const seen = new Set<string>();
  const latencies: number[] = [];
  let last = 0;
  for (const a of arrivals) {
    const k = `${a.path}#${a.n}`;
    if (seen.has(k)) continue;
    seen.add(k);
    latencies.push(a.at - (got.commitAt[a.n] as number));
    last = Math.max(last, a.at);
  }
  const seconds = (last - Math.min(...got.commitAt)) / 1000;
  const figures: RunFigures = {
    messages,
    deliveries: seen.size,
    duplicates: arrivals.length - seen.size,
    seconds: Math.round(seconds * 100) / 100,
    deliveriesPerSec: Math.round(seen.size / seconds),
    latency: summarize(latencies),
    ...(got.attempts !== undefined ? { attempts: got.attempts } : {}),
  };
  if (figures.deliveries !== messages * ENDPOINTS)
    throw new Error(`${mode}: ${figures.deliveries} of ${messages * ENDPOINTS} deliveries arrived`);
  process.stdout.write(
    `  ${driver} ${mode}${paceMs ? ` paced ${paceMs} ms` : ""}: ${figures.deliveries} deliveries in ${figures.seconds} s = ${figures.deliveriesPerSec}/s; latency p50 ${figures.latency.p50} ms, p99 ${figures.latency.p99} ms\n`,
  );
  return figures;
}

/** The export of `days` days, written once into the temp directory. */
async function exportFile(days: number): Promise<string> {
  const file = join(tmpdir(), `platform-bench-webhooks-export-${days}d.xml`);
  if (existsSync(file)) return file;
  process.stdout.write(`  writing a ${days}-day Apple Health export...\n`);
  const partial = `${file}.partial`;
  await writeDemoExport({ days, seed: 1, endDate: "2026-11-01", out: createWriteStream(partial) });
  renameSync(partial, file);
  return file;
}

interface ImportFigures {
  samples: number;
  seconds: number;
  samplesPerSec: number;
  messages: number;
  payloadMiB: number;
  deliveries: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;
const results: Record<string, unknown> = {};

for (const driver of drivers) {
  if (parts.includes("delivery")) {
    process.stdout.write(`delivery (${driver}): ${ENDPOINTS} endpoints × ${MESSAGES} messages\n`);
    const ours = await run("service", driver, MESSAGES, 0);
    const baseline = await run("baseline", driver, MESSAGES, 0);
    // Latency when the queue keeps up: messages on a pace of LATENCY_LOAD of our measured throughput.
    const paceMs = Math.max(1, Math.round((ENDPOINTS * 1000) / (ours.deliveriesPerSec * LATENCY_LOAD)));
    const oursPaced = await run("service", driver, LATENCY_MESSAGES, paceMs);
    const baselinePaced = await run("baseline", driver, LATENCY_MESSAGES, paceMs);
    const ratio = Math.round((ours.deliveriesPerSec / baseline.deliveriesPerSec) * 100) / 100;
    process.stdout.write(`  ratio ours/baseline deliveries/s: ${ratio}\n`);
    results[`delivery_${driver}`] = {
      endpoints: ENDPOINTS,
      concurrency: CONCURRENCY,
      burst: { ours, baseline },
      paced: { paceMs, messagesPerSec: Math.round(10_000 / paceMs) / 10, ours: oursPaced, baseline: baselinePaced },
      ratio,
    };
  }
  if (parts.includes("import")) {
    const file = await exportFile(IMPORT_DAYS);
    process.stdout.write(`import (${driver}): ${IMPORT_DAYS}-day Apple Health export\n`);
    const without: ImportFigures[] = [];
    const withEndpoint: ImportFigures[] = [];
    for (let round = 0; round < IMPORT_ROUNDS; round++) {
      for (const withIt of [false, true]) {
        const f = (await runLoadScript(here("./sender.ts"), file, {
          BENCH_MODE: "import",
          BENCH_DRIVER: driver,
          BENCH_WITH_ENDPOINT: withIt ? "1" : "0",
        })) as unknown as ImportFigures;
        (withIt ? withEndpoint : without).push(f);
        process.stdout.write(
          `  ${withIt ? "with an endpoint" : "no endpoint"}: ${f.samples} samples in ${f.seconds} s = ${f.samplesPerSec}/s; ${f.messages} messages (${f.payloadMiB} MiB)\n`,
        );
      }
    }
    const a = median(without.map((f) => f.samplesPerSec));
    const b = median(withEndpoint.map((f) => f.samplesPerSec));
    const ratio = Math.round((b / a) * 100) / 100;
    process.stdout.write(`  ratio with/without: ${ratio}\n`);
    results[`import_${driver}`] = {
      days: IMPORT_DAYS,
      without: without.at(-1),
      withEndpoint: withEndpoint.at(-1),
      samplesPerSec: { without: a, withEndpoint: b },
      ratio,
    };
  }
}
for (const server of servers) {
  server.closeAllConnections();
  server.close();
}
process.stdout.write(`results: ${writeResults("webhooks", results)}\n`);
