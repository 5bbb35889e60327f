import { type ChainEndpoint, type Config, type DemoCredentials, resolveLogFormat } from "@platform/kernel";
import { createTable } from "./table.ts";

export interface RunningService {
  name: string;
  title: string;
  origin: string;
  baseUrl: string;
}

/**
 * Where a long-running command's text for a person goes (its banner, "Stopping…"): stdout, unless the log
 * writes JSON lines there (LOG_FORMAT=json, or `auto` without a terminal), then stderr, so that stdout holds
 * nothing but JSON lines for a collector.
 */
export function humanOutput(config: Pick<Config, "logFormat">): NodeJS.WriteStream {
  return resolveLogFormat(config.logFormat) === "json" ? process.stderr : process.stdout;
}

/**
 * What `platform start` tells the person who ran it (not the log: it holds demo keys once), on
 * {@link humanOutput}.
 */
export function printBanner(o: {
  config: Config;
  services: RunningService[];
  demoKeys: { service: string; key: string }[];
  /** What services seeded on this first start (the brokerage's demo user and OAuth client). */
  demoCredentials?: readonly DemoCredentials[];
  driver: string;
  chains: ChainEndpoint[];
  devnet?: string[] | undefined;
  role?: Config["role"];
  /** This process's row in `platform.instances`. */
  instanceId?: string;
}) {
  const table = createTable(["service", "base URL", "OpenAPI", "docs"]);
  for (const s of o.services) table.push([s.name, s.baseUrl, `${s.origin}/openapi.json`, `${s.origin}/docs`]);
  const role = o.role ?? "all";
  const lines = ["", role === "all" ? "Platform running" : `Platform running, role ${role}`];
  // A worker serves no public port: it says what it runs instead of an empty table.
  if (role === "worker") lines.push(`Background jobs of: ${(o.config.services as string[]).join(", ")}`);
  else lines.push(table.toString());
  if (role !== "all" && o.instanceId) lines.push(`Instance: ${o.instanceId} (see \`platform status\`)`);
  lines.push(
    o.driver === "pglite"
      ? `Database: embedded PGlite in ${o.config.dataDir}/pglite (set DATABASE_URL for PostgreSQL)`
      : "Database: PostgreSQL (DATABASE_URL)",
  );
  if (o.chains.length) {
    const chains = createTable(["chain id", "JSON-RPC"]);
    for (const c of o.chains) chains.push([String(c.chainId), c.rpcUrl]);
    lines.push("", "Chains", chains.toString());
  }
  if (o.devnet) lines.push(...o.devnet);
  if (o.demoKeys.length) {
    lines.push("", "Demo API keys, created on this first start (shown once; only their hashes are stored):");
    for (const k of o.demoKeys) lines.push(`  ${k.service.padEnd(12)} ${k.key}`);
  } else {
    lines.push("", "API keys: `npx platform keys create --service <name>` (`keys list`, `keys revoke <id>`).");
  }
  for (const demo of o.demoCredentials ?? []) {
    lines.push("", `${demo.title} (shown once; only hashes are stored):`);
    const width = Math.max(...demo.lines.map(([label]) => label.length));
    for (const [label, value] of demo.lines) lines.push(`  ${label.padEnd(width)}  ${value}`);
  }
  lines.push("", "Ctrl-C stops the platform.", "");
  humanOutput(o.config).write(`${lines.join("\n")}\n`);
}
