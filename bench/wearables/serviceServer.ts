/**
 * The real wearables service (as `platform start` runs it) on a wearables benchmark database, in its own
 * process: `BENCH_DB` names it (`wearables_timeseries`, `wearables_import`), `BENCH_DRIVER` the driver.
 * Prints READY {url, key}.
 */
import { wearablesService } from "@platform/wearables";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { serveServiceForBench } from "../lib/serveService.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const name = process.env.BENCH_DB ?? "wearables_timeseries";
await serveServiceForBench(wearablesService, await benchDatabase(name).open(driver));
