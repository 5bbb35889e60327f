/**
 * Where the platform's memory goes, one step at a time, in one process: run with the loader the `platform`
 * command uses (`node --expose-gc --import tsx bench/platform/probe.ts`), it prints one JSON line per step
 * with `process.memoryUsage()` after a full garbage collection, so each step's growth is what it keeps.
 * Steps: the loader alone; the kernel's import; each service package's import; the database opened
 * (PROBE_DRIVER=pglite on PROBE_DATA_DIR, fresh or reopened, or postgres on PROBE_DATABASE_URL) with every
 * migration applied; every service created; their HTTP servers listening; their background jobs started;
 * then PROBE_IDLE_SEC of idling (the jobs' own work).
 */
import { tmpdir } from "node:os";
import { getHeapStatistics } from "node:v8";

const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
}

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

async function step(name: string): Promise<void> {
  await settle();
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  process.stdout.write(
    `STEP ${JSON.stringify({
      step: name,
      rss: mib(m.rss),
      heapUsed: mib(m.heapUsed),
      heapTotal: mib(m.heapTotal),
      external: mib(m.external),
      arrayBuffers: mib(m.arrayBuffers),
      mallocedMemory: mib(h.malloced_memory),
    })}\n`,
  );
}

await step(process.execArgv.includes("tsx") ? "node + tsx loader" : "node (precompiled, no loader)");
const kernel = await import("@platform/kernel");
await step("+ @platform/kernel");
const packages = [
  "@platform/chains",
  "@platform/wearables",
  "@platform/crosschain",
  "@platform/brokerage",
  "@platform/chainstats",
];
for (const p of packages) {
  await import(p);
  await step(`+ ${p}`);
}
const { allServices } = await import("../../packages/platform/src/services.ts");
await step("+ platform command's modules");

const driver = process.env.PROBE_DRIVER ?? "pglite";
const dataDir = process.env.PROBE_DATA_DIR ?? tmpdir();
const config = kernel.loadConfig({
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    DEVNET: "false",
    LOG_LEVEL: "warn",
    ...(driver === "postgres" ? { DATABASE_URL: process.env.PROBE_DATABASE_URL } : {}),
    WEARABLES_PORT: "0",
    WEARABLES_SANDBOX_PORT: "0",
    CROSSCHAIN_PORT: "0",
    CHAINSTATS_PORT: "0",
    BROKERAGE_AUTH_PORT: "0",
    BROKERAGE_LIVE_PORT: "0",
    BROKERAGE_PAPER_PORT: "0",
    BROKERAGE_DATA_PORT: "0",
  },
});
const logger = kernel.createLogger({ level: "warn" });
const db = await kernel.createDatabase({
  url: config.databaseUrl,
  dataDir,
  pgliteSharedBuffers: config.pgliteSharedBuffers,
  logger,
});
await step(`+ database open (${driver}${driver === "pglite" ? `, ${process.env.PROBE_FOLDER ?? ""}` : ""})`);
await kernel.migrate(db, [...kernel.kernelMigrations(), ...allServices.flatMap((s) => s.migrations)]);
await step("+ migrations");
const apiKeys = kernel.createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs });
const context = { config, db, logger, apiKeys, chains: [] };
const instances = [];
for (const s of allServices) instances.push({ s, instance: await s.create(context) });
await step("+ services created");
const servers = [];
for (const { s, instance } of instances) {
  for (const host of [{ name: "" }, ...(s.hosts ?? [])]) {
    const app = await instance.createServer(host.name || undefined);
    await app.listen({ host: "127.0.0.1", port: 0 });
    servers.push(app);
  }
}
await step("+ HTTP servers");
const jobs = [];
for (const { instance } of instances) if (instance.startJobs) jobs.push(await instance.startJobs());
await step("+ background jobs");
const idleSec = Number(process.env.PROBE_IDLE_SEC ?? 20);
await new Promise((r) => setTimeout(r, idleSec * 1000));
await step(`+ ${idleSec} s idle`);
for (const j of jobs) await j.stop();
for (const app of servers) await app.close();
for (const { instance } of instances) await instance.close?.();
await db.close();
process.stdout.write("DONE\n");
process.exit(0);
