/**
 * Runs a service's operator command (`ServiceInstance.operatorCommands`) for the CLI. While a platform runs
 * on the embedded database it owns the data folder, so the command goes through its admin socket; otherwise
 * (no platform, or PostgreSQL, which several processes share) the CLI opens the platform, creates the service
 * for that context, runs the command itself and closes everything again.
 */
import type { Config, OperatorCommand, PlatformContext } from "@platform/kernel";
import { callAdmin } from "../admin/adminSocket.ts";
import { reachPlatform } from "../admin/platformAccess.ts";
import type { Platform } from "../openPlatform.ts";
import { requireService } from "../services.ts";

/** The JSON answer of `serviceName`'s operator command `command` called with `args`. */
export async function runOperatorCommand(
  config: Config,
  serviceName: string,
  command: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  requireService(serviceName); // an unknown service fails here, before anything is opened
  const access = await reachPlatform(quiet(config));
  if (access.through === "admin") {
    const path = `/services/${encodeURIComponent(serviceName)}/commands/${encodeURIComponent(command)}`;
    const answer = await callAdmin<{ result: unknown }>(config.dataDir, "POST", path, args);
    if (!answer) throw new Error("The platform stopped while the command was sent; run it again");
    return answer.result;
  }
  return withOperatorCommands(access.platform, serviceName, async (commands) => {
    const run = commands[command];
    if (!run) throw new Error(`${serviceName} has no command "${command}"`);
    return (await run(args)) ?? null;
  });
}

/** The configuration of a command that opens the platform itself: its logger says only warnings and worse. */
export const quiet = (config: Config): Config => ({
  ...config,
  logLevel: config.logLevel === "info" ? "warn" : config.logLevel,
});

/**
 * Runs `work` with `serviceName`'s operator commands in this process, on `platform` (opened by this process,
 * see `reachPlatform`), and closes the platform after.
 */
export async function withOperatorCommands<T>(
  platform: Platform,
  serviceName: string,
  work: (commands: Readonly<Record<string, OperatorCommand>>) => Promise<T>,
): Promise<T> {
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
    await platform.close();
  }
}
