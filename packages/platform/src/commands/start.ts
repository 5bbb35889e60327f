/**
 * `platform start`: every enabled service in this one process, on embedded defaults unless configured
 * otherwise: the devnet chains (unless disabled), each service's HTTP server and background jobs, and
 * the local admin socket. Prints the services and their base URLs, and on the first start of each
 * service a demo API key (only its hash is stored). `stop()` undoes it all in reverse order.
 *
 * Its role (`--role`, PLATFORM_ROLE) splits that work between processes on one PostgreSQL database:
 * - `all` (default): everything above, the only role on the embedded database (it has one owner);
 * - `api`: the services' HTTP servers only: no background jobs, no lease, no devnet (its chains are the devnet
 *   manifest's, if one was written under DATA_DIR, and CHAIN_RPC_URLS, as `platform relayer` reads them), no
 *   admin socket (commands open PostgreSQL themselves). Any number run side by side;
 * - `worker`: the background jobs (every service's `startJobs`), the devnet if configured and the admin socket
 *   (`platform status` reads its jobs there), but no public HTTP port: its liveness is its heartbeat in
 *   `platform.instances` and the admin socket's `/health`. Several share the work through the job layer's
 *   leases and `FOR UPDATE SKIP LOCKED`.
 * Every role registers the process in `platform.instances` (kernel/src/instances.ts) for `platform status`.
 */
import { manifestChainEndpoints } from "@platform/chains";
import {
  type BackgroundJob,
  type Config,
  closeGracefully,
  type DemoCredentials,
  type HttpServer,
  type PlatformContext,
  type PlatformRole,
  registerInstance,
  resolveLogFormat,
  type ServiceInstance,
  secretKeysProblem,
  warnOfDevelopmentDefaults,
} from "@platform/kernel";
import { startAdminServer } from "../admin/adminSocket.ts";
import { openPlatformOrExplain } from "../admin/platformAccess.ts";
import { devnetContext, readDevnetManifest, resolveChains } from "../chainEndpoints.ts";
import { allServices } from "../services.ts";
import { printBanner, type RunningService } from "./banner.ts";
import { startDevnetIfNeeded } from "./devnet.ts";

export interface RunningPlatform {
  services: RunningService[];
  stop(): Promise<void>;
}

const DEMO_KEY_NAME = "demo";

/** Refuses a role the configuration cannot run, before anything starts. */
export function checkRole(config: Config): void {
  if (config.role !== "all" && !config.databaseUrl) {
    throw new Error(
      `--role ${config.role} needs PostgreSQL (DATABASE_URL): the embedded database has one owner, which runs --role all`,
    );
  }
  // Before anything starts, rather than when a service first seals a token with a key no other instance has.
  const secrets = secretKeysProblem(config);
  if (secrets) throw new Error(secrets);
}

export async function startPlatform(
  config: Config,
  options: { resetDevnet?: boolean; role?: PlatformRole } = {},
): Promise<RunningPlatform> {
  if (options.role) config = { ...config, role: options.role };
  checkRole(config);
  const serves = config.role !== "worker";
  const works = config.role !== "api";
  // The embedded database's folder is locked from here until the last stop: a second platform or a command
  // on it fails or goes through the admin socket, even while this one is still starting.
  const platform = await openPlatformOrExplain(config, { servesAdmin: works });
  const { logger, db, apiKeys } = platform;
  warnOfDevelopmentDefaults(config, logger);
  const stops: (() => Promise<void>)[] = [() => platform.close()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => logger.error({ err }, "stop failed"));
    stops.length = 0;
  };

  try {
    // An api instance never runs chains: it reads those of the devnet a worker (or `platform devnet`) runs.
    // So does a worker that runs none because CHAIN_RPC_URLS names every devnet chain (several workers on the
    // chains of one `platform devnet`): without the manifest it would know no SpokePool and no relayer key.
    const devnet = works ? await startDevnetIfNeeded(config, logger, { reset: options.resetDevnet }) : undefined;
    if (devnet) stops.push(() => devnet.stop());
    const manifest = devnet ? devnet.devnet.manifest : config.role === "all" ? undefined : readDevnetManifest(config);
    const chains = resolveChains(config, devnet?.chains ?? manifestChainEndpoints(manifest));
    // The devnet's (publicly known) relayer key goes to the context's `devnet`, never into `config`: the
    // crosschain relayer fills with it only when CROSSCHAIN_RELAYER_KEY is not set.
    const context: PlatformContext = {
      config,
      db,
      logger,
      apiKeys,
      chains,
      devnet: devnetContext(manifest),
    };
    const registered = await registerInstance({ db, role: config.role, logger });
    stops.push(() => registered.stop());

    const running: RunningService[] = [];
    const jobs = new Map<string, BackgroundJob>();
    const instances = new Map<string, ServiceInstance>();
    for (const service of allServices.filter((s) => (config.services as string[]).includes(s.name))) {
      const instance = await service.create(context);
      instances.set(service.name, instance);
      // Stops run in reverse order: the instance closes after its jobs and its servers stopped.
      stops.push(async () => instance.close?.());
      const hosts = [
        { name: "", title: service.title, port: service.port, basePath: service.basePath },
        ...(service.hosts ?? []).filter((h) => h.enabled?.(config) ?? true),
      ];
      for (const host of serves ? hosts : []) {
        const app = await instance.createServer(host.name || undefined);
        await listenQuietlyAtTerminal(app, { host: config.host, port: host.port(config) }, config);
        stops.push(() => closeGracefully(app, config.shutdownTimeoutMs));
        const address = app.server.address();
        const port = typeof address === "object" && address ? address.port : host.port(config);
        const origin = `http://${config.publicHost ?? config.host}:${port}`;
        const name = host.name ? `${service.name} ${host.name}` : service.name;
        running.push({ name, title: host.title, origin, baseUrl: `${origin}${host.basePath}` });
      }
      if (works && instance.startJobs) {
        const job = await instance.startJobs();
        jobs.set(service.name, job);
        stops.push(() => job.stop());
      }
    }

    // The admin socket is one per data folder: api instances (any number, maybe on one folder) leave it to the
    // worker, whose jobs it reports; on PostgreSQL every command can open the database without it.
    if (works) {
      const admin = await startAdminServer(config.dataDir, apiKeys, {
        jobStatus: () => Object.fromEntries([...jobs].map(([name, job]) => [name, job.status?.() ?? {}])),
        operatorCommands: (service) => instances.get(service)?.operatorCommands,
        db,
      });
      stops.push(() => admin.close());
    }

    // Demo data once in the life of the database: an API key per service that uses them (a revoked demo key
    // is not recreated), and what a service seeds itself (the brokerage's demo user and OAuth client).
    const demoKeys: { service: string; key: string }[] = [];
    const demoCredentials: DemoCredentials[] = [];
    // Seeded where clients are served (all, api): a worker's banner shows no URL to use them with.
    for (const [name, instance] of serves ? instances : new Map<string, ServiceInstance>()) {
      const seeded = await instance.seedDemo?.();
      if (seeded) demoCredentials.push(seeded);
      const definition = allServices.find((d) => d.name === name);
      if (definition?.usesApiKeys === false) continue;
      const existing = await apiKeys.list({ service: name });
      if (!existing.some((k) => k.name === DEMO_KEY_NAME)) {
        const plan = definition?.demoKeyPlan ?? null;
        demoKeys.push({ service: name, key: (await apiKeys.create({ service: name, name: DEMO_KEY_NAME, plan })).key });
      }
    }
    // Logged before the banner, so that the banner ends what starting prints (LOG_FORMAT=json: it goes to
    // stderr instead, see `humanOutput`).
    logger.info(
      { role: config.role, instance: registered.id, services: running.map((s) => s.name), chains: chains.length },
      "platform started",
    );
    printBanner({
      config,
      services: running,
      demoKeys,
      demoCredentials,
      driver: db.driver,
      chains,
      devnet: devnet?.summary,
      role: config.role,
      instanceId: registered.id,
    });
    return { services: running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Fastify logs "Server listening at …" for each server. For a collector (JSON lines) that is the record of
 * which port a server took; at a terminal the banner lists every URL right after, so there the line would
 * only say it twice: it is left out (the app's logger is raised to `warn` for the call only).
 */
async function listenQuietlyAtTerminal(
  app: HttpServer,
  address: { host: string; port: number },
  config: Pick<Config, "logFormat">,
): Promise<void> {
  if (resolveLogFormat(config.logFormat) !== "pretty") {
    await app.listen(address);
    return;
  }
  const level = app.log.level;
  app.log.level = "warn";
  try {
    await app.listen(address);
  } finally {
    app.log.level = level;
  }
}
