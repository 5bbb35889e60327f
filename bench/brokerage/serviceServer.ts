/** The real brokerage service's live host on the benchmark database, in its own process. Prints READY {url}. */
import { brokerageService } from "@platform/brokerage";
import { serveServiceForBench } from "../lib/serveService.ts";
import { type Driver, openBenchDatabase } from "./database.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
// The anchor's 200 requests a minute would turn the load into 429s: the limit is raised, still counted.
await serveServiceForBench(brokerageService, await openBenchDatabase(driver), {
  env: { BROKERAGE_RATE_LIMIT: "1000000" },
});
