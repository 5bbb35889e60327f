import type { Config } from "@platform/kernel";
import { isPlatformRunning } from "../admin/adminSocket.ts";
import { openPlatform } from "../openPlatform.ts";

/** `platform migrate`: applies every pending migration and exits. */
export async function migrateCommand(config: Config) {
  if (!config.databaseUrl && (await isPlatformRunning(config.dataDir))) {
    throw new Error("The platform is running on this data folder and has already applied its migrations");
  }
  const platform = await openPlatform({ ...config, logLevel: "warn" });
  await platform.db.close();
  process.stdout.write(
    platform.applied.length ? `Applied:\n${platform.applied.map((m) => `  ${m}`).join("\n")}\n` : "Up to date.\n",
  );
}
