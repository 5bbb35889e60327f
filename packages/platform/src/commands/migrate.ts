import type { Config } from "@platform/kernel";
import { reachPlatform } from "../admin/platformAccess.ts";

/** `platform migrate`: applies every pending migration and exits. */
export async function migrateCommand(config: Config) {
  const access = await reachPlatform({ ...config, logLevel: "warn" });
  if (access.through === "admin") {
    process.stdout.write("Up to date (the running platform applied its migrations when it started).\n");
    return;
  }
  const { platform } = access;
  await platform.close();
  process.stdout.write(
    platform.applied.length ? `Applied:\n${platform.applied.map((m) => `  ${m}`).join("\n")}\n` : "Up to date.\n",
  );
}
