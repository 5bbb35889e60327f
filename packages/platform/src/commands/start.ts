/**
 * `platform start`: every enabled service in this one process, on embedded defaults unless configured
 * otherwise: the devnet chains (unless disabled), each service's HTTP server and background jobs, and
 * the local admin socket. Prints the services and their base URLs, and on the first start of each
 * service a demo API key (only its hash is stored). `stop()` undoes it all in reverse order.
 */
import {
  type BackgroundJob,
  type Config,
  closeGracefully,
  type DemoCredentials,
  type PlatformContext,
  type ServiceInstance,
  warnOfDevelopmentDefaults,
} from "@platform/kernel";
import { startAdminServer } from "../admin/adminSocket.ts";
import { openPlatformOrExplain } from "../admin/platformAccess.ts";
import { devnetContext, resolveChains } from "../chainEndpoints.ts";
import { allServices } from "../services.ts";
import { printBanner, type RunningService } from "./banner.ts";
import { startDevnetIfNeeded } from "./devnet.ts";

export interface RunningPlatform {
  services: RunningService[];
  stop(): Promise<void>;
}

const DEMO_KEY_NAME = "demo";

export async function startPlatform(config: Config, options: { resetDevnet?: boolean } = {}): Promise<RunningPlatform> {
  // The embedded database's folder is locked from here until the last stop: a second platform or a command
  // on it fails or goes through the admin socket, even while this one is still starting.
  const platform = await openPlatformOrExplain(config, { servesAdmin: true });
  const { logger, db, apiKeys } = platform;
  warnOfDevelopmentDefaults(config, logger);
  const stops: (() => Promise<void>)[] = [() => platform.close()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => logger.error({ err }, "stop failed"));
    stops.length = 0;
  };

  try {
    const devnet = await startDevnetIfNeeded(config, logger, { reset: options.resetDevnet });
    if (devnet) stops.push(() => devnet.stop());
    const chains = resolveChains(config, devnet?.chains ?? []);
    // The devnet's (publicly known) relayer key goes to the context's `devnet`, never into `config`: the
    // crosschain relayer fills with it only when CROSSCHAIN_RELAYER_KEY is not set.
    const context: PlatformContext = {
      config,
      db,
      logger,
      apiKeys,
      chains,
      devnet: devnetContext(devnet?.devnet.manifest),
    };

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
        ...(service.hosts ?? []),
      ];
      for (const host of hosts) {
        const app = await instance.createServer(host.name || undefined);
        await app.listen({ host: config.host, port: host.port(config) });
        stops.push(() => closeGracefully(app, config.shutdownTimeoutMs));
        const address = app.server.address();
        const port = typeof address === "object" && address ? address.port : host.port(config);
        const origin = `http://${config.publicHost ?? config.host}:${port}`;
        const name = host.name ? `${service.name} ${host.name}` : service.name;
        running.push({ name, title: host.title, origin, baseUrl: `${origin}${host.basePath}` });
      }
      if (instance.startJobs) {
        const job = await instance.startJobs();
        jobs.set(service.name, job);
        stops.push(() => job.stop());
      }
    }

    const admin = await startAdminServer(config.dataDir, apiKeys, {
      jobStatus: () => Object.fromEntries([...jobs].map(([name, job]) => [name, job.status?.() ?? {}])),
      operatorCommands: (service) => instances.get(service)?.operatorCommands,
      db,
    });
    stops.push(() => admin.close());

    // Demo data once in the life of the database: an API key per service that uses them (a revoked demo key
    // is not recreated), and what a service seeds itself (the brokerage's demo user and OAuth client).
    const demoKeys: { service: string; key: string }[] = [];
    const demoCredentials: DemoCredentials[] = [];
    for (const [name, instance] of instances) {
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
    logger.info({ services: running.map((s) => s.name), chains: chains.length }, "platform started");
    printBanner({
      config,
      services: running,
      demoKeys,
      demoCredentials,
      driver: db.driver,
      chains,
      devnet: devnet?.summary,
    });
    return { services: running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
