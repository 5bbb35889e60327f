/**
 * `platform keys create|list|revoke`. With PostgreSQL the command opens the database itself; with
 * PGlite it goes through the running platform's admin socket (waiting for it while the platform starts),
 * or opens the data folder when no platform is running (see admin/platformAccess.ts).
 */
import type { ApiKeyRecord, Config, CreatedApiKey } from "@platform/kernel";
import { callAdmin } from "../admin/adminSocket.ts";
import { reachPlatform } from "../admin/platformAccess.ts";
import { keyPlanFor, requireService } from "../services.ts";
import { createTable } from "./table.ts";

interface KeyAccess {
  create(p: { service: string; name: string; plan?: string | null }): Promise<CreatedApiKey>;
  list(p: { service?: string }): Promise<ApiKeyRecord[]>;
  revoke(id: string): Promise<boolean>;
  close(): Promise<void>;
}

async function openKeyAccess(config: Config): Promise<KeyAccess> {
  const access = await reachPlatform({ ...config, logLevel: "warn" });
  if (access.through === "admin") {
    const admin = async <T>(method: string, path: string, body?: unknown) => {
      const answer = await callAdmin<T>(config.dataDir, method, path, body);
      if (answer === undefined) throw new Error("The platform stopped while the command was sent; run it again");
      return answer;
    };
    return {
      create: (p) => admin("POST", "/keys", p),
      list: (p) => admin("GET", `/keys${p.service ? `?service=${encodeURIComponent(p.service)}` : ""}`),
      revoke: async (id) => (await admin<{ revoked: boolean }>("DELETE", `/keys/${encodeURIComponent(id)}`)).revoked,
      close: async () => {},
    };
  }
  const { platform } = access;
  return {
    create: (p) => platform.apiKeys.create(p),
    list: (p) => platform.apiKeys.list(p),
    revoke: (id) => platform.apiKeys.revoke(id),
    close: () => platform.close(),
  };
}

export async function createKey(config: Config, o: { service: string; name?: string; plan?: string; json?: boolean }) {
  const plan = keyPlanFor(o.service, o.plan);
  const access = await openKeyAccess(config);
  try {
    const created = await access.create({ service: o.service, name: o.name ?? "default", plan });
    if (o.json) {
      const out = { service: created.service, name: created.name, key: created.key, plan: created.plan ?? undefined };
      process.stdout.write(`${JSON.stringify(out)}\n`);
    } else {
      process.stdout.write(
        `Created ${created.service} key "${created.name}"${created.plan ? ` on plan ${created.plan}` : ""} (id ${created.id}).\n` +
          "Store it now: it is shown only once.\n\n" +
          `  ${created.key}\n`,
      );
    }
  } finally {
    await access.close();
  }
}

export async function listKeys(config: Config, o: { service?: string; json?: boolean }) {
  if (o.service) requireService(o.service);
  const access = await openKeyAccess(config);
  try {
    const keys = await access.list({ service: o.service });
    if (o.json) {
      process.stdout.write(`${JSON.stringify(keys)}\n`);
      return;
    }
    const table = createTable(["id", "service", "name", "key prefix", "plan", "created", "status"]);
    for (const k of keys) {
      table.push([
        k.id,
        k.service,
        k.name,
        `${k.prefix}_…`,
        k.plan ?? "",
        new Date(k.created_at).toISOString(),
        k.revoked_at ? "revoked" : "active",
      ]);
    }
    process.stdout.write(`${table.toString()}\n`);
  } finally {
    await access.close();
  }
}

export async function revokeKey(config: Config, id: string) {
  const access = await openKeyAccess(config);
  try {
    if (!(await access.revoke(id))) throw new Error(`No active key with id ${id}`);
    process.stdout.write(`Revoked key ${id}.\n`);
  } finally {
    await access.close();
  }
}
