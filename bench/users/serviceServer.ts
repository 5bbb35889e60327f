/** The real wearables service on the benchmark database, in its own process. Prints READY {url, key}. */
import { wearablesService } from "@platform/wearables";
import { serveServiceForBench } from "../lib/serveService.ts";
import { type Driver, openBenchDatabase } from "./database.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
await serveServiceForBench(wearablesService, await openBenchDatabase(driver));
