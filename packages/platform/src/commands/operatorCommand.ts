/**
 * Runs a service's operator command (`ServiceInstance.operatorCommands`) for the CLI. While a platform runs
 * on the embedded database it owns the data folder, so the command goes through its admin socket; otherwise
 * (no platform, or PostgreSQL, which several processes share) the CLI opens the platform, creates the service
 * for that context, runs the command itself and closes everything again.
 */
import type { Config, OperatorCommand, PlatformContext } from "@platform/kernel";
import { callAdmin, isPlatformRunning } from "../admin/adminSocket.ts";
import { openPlatform } from "../openPlatform.ts";
import { requireService } from "../services.ts";

/** The JSON answer of `serviceName`'s operator command `command` called with `args`. */
export async function runOperatorCommand(
  config: Config,
  serviceName: string,
  command: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  requireService(serviceName); // an unknown service fails here, before anything is opened
  if (!config.databaseUrl && (await isPlatformRunning(config.dataDir))) {
    const path = `/services/${encodeURIComponent(serviceName)}/commands/${encodeURIComponent(command)}`;
    const answer = await callAdmin<{ result: unknown }>(config.dataDir, "POST", path, args);
    if (!answer) throw new Error("The platform stopped while the command was sent; run it again");
    return answer.result;
  }
  return withOperatorCommands(config, serviceName, async (commands) => {
    const run = commands[command];
    if (!run) throw new Error(`${serviceName} has no command "${command}"`);
    return (await run(args)) ?? null;
  });
}

/**
 * Runs `work` with `serviceName`'s operator commands in this process, which opens the platform (it must own
 * the database: no platform running on an embedded one) and closes it after.
 */
export async function withOperatorCommands<T>(
  config: Config,
  serviceName: string,
  work: (commands: Readonly<Record<string, OperatorCommand>>) => Promise<T>,
): Promise<T> {
  const platform = await openPlatform({ ...config, logLevel: config.logLevel === "info" ? "warn" : config.logLevel });
  try {
    const context: PlatformContext = {
      config: platform.config,
      db: platform.db,
      logger: platform.logger,
      apiKeys: platform.apiKeys,
      chains: [],
    };
    const instance = await requireService(serviceName).create(context);
    try {
      return await work(instance.operatorCommands ?? {});
    } finally {
      await instance.close?.();
    }
  } finally {
    await platform.db.close();
  }
}
