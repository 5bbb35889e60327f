// Creates an embedded database folder (PGlite's initdb) in a short-lived process of its own (see
// createPgliteDatabase): initdb's WebAssembly memory, about 630 MB at its peak, can never be given back by
// the process that ran it, so the platform would keep it resident for its whole life.
// Usage: node pgliteInitdb.mjs <folder> [postgres start parameters as JSON]
import { PGlite } from "@electric-sql/pglite";

const [folder, params] = process.argv.slice(2);
const pg = await PGlite.create(folder, params ? { startParams: JSON.parse(params) } : {});
await pg.close();
