/**
 * The `summary` part: `GET /summaries/activity` of the demo user over the export's last year (one page: 365 days,
 * `limit=400`), on the database the `import` part left (`bench_wearables_import`), through the real service:
 * `repeats` requests one at a time after a warm-up (a request takes near a second on PGlite: under concurrent load
 * autocannon's 10 s timeout would cut the queue), p50/p99/max. Skipped, saying so, when the service does not
 * serve the route (404).
 */
import { fileURLToPath } from "node:url";
import type { Driver } from "../lib/benchDatabase.ts";
import { type LatencySummary, summarize } from "../lib/latency.ts";
import { startServerScript } from "../lib/processes.ts";
import { EXPORT_END_DATE } from "./importBench.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

export type SummaryResult = { days: number; route: string; latency: LatencySummary } | { skipped: string };

export async function summaryBenchmark(o: { driver: Driver; userId: string; repeats: number }): Promise<SummaryResult> {
  const server = await startServerScript(here("./serviceServer.ts"), {
    BENCH_DRIVER: o.driver,
    BENCH_DB: "wearables_import",
  });
  try {
    const end = new Date(`${EXPORT_END_DATE}T00:00:00Z`);
    const start = new Date(end.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
    const path = `/api/v1/users/${o.userId}/summaries/activity?start_date=${start}&end_date=${EXPORT_END_DATE}&limit=400`;
    const headers = { "X-Service-API-Key": server.info.key as string };
    const first = await fetch(`${server.info.url}${path}`, { headers });
    const body = (await first.json()) as { data?: unknown[] };
    if (first.status === 404) return { skipped: "the service answers 404: the summaries routes are not wired yet" };
    if (first.status !== 200) throw new Error(`GET ${path}: ${first.status} ${JSON.stringify(body)}`);
    const times: number[] = [];
    for (let k = 0; k < o.repeats; k++) {
      const t0 = performance.now();
      const response = await fetch(`${server.info.url}${path}`, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
      times.push(performance.now() - t0);
    }
    const route = `GET /summaries/activity ${start} → ${EXPORT_END_DATE}, limit 400`;
    return { days: body.data?.length ?? 0, route, latency: summarize(times) };
  } finally {
    await server.stop();
  }
}
