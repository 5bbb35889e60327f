/**
 * Market data fan-out (`dataFanout`): `connections` clients on `/v2/iex` (OAuth tokens of `tokens`' users, whose
 * connection limit the benchmark raised), all subscribed to the trades and quotes of the same symbols; then
 * messages offered at a fixed rate for `durationSec` (`dataFeedMessages.ts`), first to the service's data host
 * (`dataServer.ts`: written into `brokerage.market_feed` with NOTIFY by `dataInjector.ts`), then to a bare `ws`
 * server that sends the same frames it makes in-process (`dataBaselineServer.ts`), to the same number of
 * clients. Each side runs the offered rate, then (when `saturatingRate` > 0) a rate meant to be more than
 * they keep up with, so that the ratio of delivered rates compares capacities rather than two equal offers.
 * Measured per side and rate: injection → frame received at each client and at the last client (median,
 * p99), frames/s and messages/s delivered across clients, whether every client got every message once in
 * order, and the server's RSS per connection.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { waitUntil } from "../lib/latency.ts";
import { rssMiB, runLoadScript, type ServerProcess, startServerScript } from "../lib/processes.ts";
import { type Delivery, openDataClients } from "./dataClients.ts";
import { type InjectionReport, injectionPlan } from "./dataFeedMessages.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
/** After the last tick went out, how long the clients may take to receive everything. */
const DRAIN_MS = 60_000;

export interface DataFanoutOptions {
  driver: "pglite" | "postgres";
  tokens: string[];
  connections: number;
  symbols: string[];
  durationSec: number;
  /** The offered rate (messages/s) and its tick (ms). */
  offered: { ratePerSec: number; tickMs: number };
  /** A rate meant to be more than either side keeps up with (ratePerSec 0: not run). */
  saturating: { ratePerSec: number; tickMs: number };
  /** Where the plan of each run is written for the injector (a file in the run's temp directory). */
  planFile: string;
}

export interface DataFanoutRun {
  kind: "offered" | "saturating";
  ratePerSec: number;
  tickMs: number;
  perTick: number;
  injection: InjectionReport;
  delivery: Delivery;
}

export interface DataFanoutSide {
  connectSec: number;
  rssMiB: { before: number; subscribed: number; after: number; perConnectionKiB: number };
  runs: DataFanoutRun[];
}

/** Service ÷ baseline for one rate: delivered rates, and the latencies side by side (ms). */
export interface DataFanoutRatio {
  kind: "offered" | "saturating";
  framesPerSec: number;
  messagesPerSec: number;
  p50: { service: number; baseline: number };
  p99: { service: number; baseline: number };
}

export interface DataFanoutResult {
  connections: number;
  users: number;
  symbols: string[];
  durationSec: number;
  service: DataFanoutSide;
  baseline: DataFanoutSide;
  ratios: DataFanoutRatio[];
}

/** Asks a server script to run the current plan (SIGUSR2) and waits for its `INJECTED` line. */
async function injectBySignal(server: ServerProcess): Promise<InjectionReport> {
  const stdout = server.child.stdout;
  if (!stdout) throw new Error("the server's stdout is not piped");
  let out = "";
  const line = new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      out += chunk;
      const found = out.split("\n").find((l) => l.startsWith("INJECTED "));
      if (!found) return;
      stdout.off("data", onData);
      resolve(found.slice("INJECTED ".length));
    };
    stdout.on("data", onData);
  });
  process.kill(Number(server.info.pid), "SIGUSR2");
  const report = JSON.parse(await line) as InjectionReport & { error?: string };
  if (report.error) throw new Error(`injection failed: ${report.error}`);
  return report;
}

async function measureSide(
  server: ServerProcess,
  inject: () => Promise<InjectionReport>,
  o: DataFanoutOptions,
): Promise<DataFanoutSide> {
  const pid = Number(server.info.pid);
  const before = rssMiB(pid);
  const clients = await openDataClients(server.info.url as string, o.tokens, o.connections, o.symbols);
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const subscribed = rssMiB(pid);
    const runs: DataFanoutRun[] = [];
    const rates = [["offered", o.offered] as const, ["saturating", o.saturating] as const];
    for (const [kind, { ratePerSec, tickMs }] of rates.filter(([, rate]) => rate.ratePerSec > 0)) {
      const plan = injectionPlan({ symbols: o.symbols, ratePerSec, durationSec: o.durationSec, tickMs });
      writeFileSync(o.planFile, JSON.stringify(plan));
      clients.startWindow();
      const injection = await inject();
      const expected = plan.ticks * plan.perTick * o.connections;
      // Until everything came, or every client was cut (the service's slow-client rule), or the drain ran out.
      await waitUntil(() => clients.delivered() >= expected || clients.closed() >= o.connections, DRAIN_MS);
      runs.push({
        kind,
        ratePerSec,
        tickMs,
        perTick: plan.perTick,
        injection,
        delivery: clients.endWindow(plan.ticks * plan.perTick),
      });
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const after = rssMiB(pid);
    return {
      connectSec: clients.connectSec,
      rssMiB: {
        before,
        subscribed,
        after,
        perConnectionKiB: Math.round(((subscribed - before) * 1024) / o.connections),
      },
      runs,
    };
  } finally {
    await clients.close();
  }
}

const ratio = (service: number, baseline: number) =>
  baseline > 0 ? Math.round((service / baseline) * 1000) / 1000 : 0;

/** Runs the service's side, then the baseline's, one server process at a time. */
export async function dataFanoutBenchmark(o: DataFanoutOptions): Promise<DataFanoutResult> {
  const env = { BENCH_DRIVER: o.driver, BENCH_DATA_PLAN_FILE: o.planFile };
  const serviceServer = await startServerScript(here("./dataServer.ts"), env);
  let service: DataFanoutSide;
  try {
    const inject =
      o.driver === "pglite"
        ? () => injectBySignal(serviceServer)
        : async () => (await runLoadScript(here("./dataInjectorScript.ts"), "", env)) as unknown as InjectionReport;
    service = await measureSide(serviceServer, inject, o);
  } finally {
    await serviceServer.stop();
  }
  const baselineServer = await startServerScript(here("./dataBaselineServer.ts"), env);
  let baseline: DataFanoutSide;
  try {
    baseline = await measureSide(baselineServer, () => injectBySignal(baselineServer), o);
  } finally {
    await baselineServer.stop();
  }
  const ratios = service.runs.map((s, i): DataFanoutRatio => {
    const b = baseline.runs[i] as DataFanoutRun;
    return {
      kind: s.kind,
      framesPerSec: ratio(s.delivery.framesPerSec, b.delivery.framesPerSec),
      messagesPerSec: ratio(s.delivery.messagesPerSec, b.delivery.messagesPerSec),
      p50: { service: s.delivery.perClient.p50, baseline: b.delivery.perClient.p50 },
      p99: { service: s.delivery.perClient.p99, baseline: b.delivery.perClient.p99 },
    };
  });
  return {
    connections: o.connections,
    users: o.tokens.length,
    symbols: o.symbols,
    durationSec: o.durationSec,
    service,
    baseline,
    ratios,
  };
}
