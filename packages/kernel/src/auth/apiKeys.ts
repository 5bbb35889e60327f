/**
 * API keys: 256 random bits, shown once, stored only as a SHA-256 hash (a fast hash is enough for
 * high-entropy secrets; there is nothing to brute-force). A key reads `<service prefix>_<lookup>_<secret>`:
 * the lookup part finds the row, the secret's hash is compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/database.ts";

export interface ApiKeyRecord {
  id: string;
  service: string;
  name: string;
  prefix: string;
  plan: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export interface CreatedApiKey extends ApiKeyRecord {
  /** The whole key; returned once, never stored. */
  key: string;
}

const LOOKUP_LENGTH = 12;
const hashSecret = (secret: string) => createHash("sha256").update(secret).digest();

/** Splits a presented key; `undefined` when it cannot be one of ours. */
export function parseApiKey(key: string): { prefix: string; secret: string } | undefined {
  const match = /^([a-z]{2,12}_[A-Za-z0-9]{12})_([A-Za-z0-9]{43})$/.exec(key);
  return match ? { prefix: match[1] as string, secret: match[2] as string } : undefined;
}

export interface ApiKeyStore {
  create(parameters: { service: string; name: string; plan?: string | null }): Promise<CreatedApiKey>;
  list(parameters?: { service?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false when no active key has that id. */
  revoke(id: string): Promise<boolean>;
  /** The active key record of `service` for `key`, or undefined. */
  verify(service: string, key: string): Promise<ApiKeyRecord | undefined>;
}

export interface CreateApiKeyStoreParameters {
  db: Database;
  /** How long a verified key is trusted without a database read; 0 disables the cache. */
  cacheTtlMs?: number;
}

const COLUMNS = "id, service, name, prefix, plan, created_at, revoked_at";
const SECRET_LENGTH = 43; // 43 base-62 characters carry 256 bits

/** `length` random characters of [A-Za-z0-9] (double-click selects the whole key). */
function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length)
    out += randomBytes(length)
      .toString("base64")
      .replace(/[^A-Za-z0-9]/g, "");
  return out.slice(0, length);
}

export function createApiKeyStore({ db, cacheTtlMs = 5_000 }: CreateApiKeyStoreParameters): ApiKeyStore {
  // Verified keys, by full key hash, so a hot path does not read the database on every request.
  const cache = new Map<string, { record: ApiKeyRecord; until: number }>();

  return {
    async create({ service, name, plan = null }) {
      const servicePrefix = service.replace(/[^a-z]/g, "").slice(0, 12) || "key";
      const prefix = `${servicePrefix}_${randomAlphanumeric(LOOKUP_LENGTH)}`;
      const secret = randomAlphanumeric(SECRET_LENGTH);
      const [row] = await db.query<ApiKeyRecord>(
        `INSERT INTO platform.api_keys (service, name, prefix, secret_hash, plan)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [service, name, prefix, hashSecret(secret), plan],
      );
      return { ...(row as ApiKeyRecord), key: `${prefix}_${secret}` };
    },

    list({ service } = {}) {
      return service
        ? db.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM platform.api_keys WHERE service = $1 ORDER BY created_at`, [
            service,
          ])
        : db.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM platform.api_keys ORDER BY service, created_at`);
    },

    async revoke(id) {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
      const rows = await db.query(
        "UPDATE platform.api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id",
        [id],
      );
      for (const [k, v] of cache) if (v.record.id === id) cache.delete(k);
      return rows.length > 0;
    },

    async verify(service, key) {
      const parsed = parseApiKey(key);
      if (!parsed) return undefined;
      const cacheKey = createHash("sha256").update(key).digest("base64");
      const hit = cache.get(cacheKey);
      if (hit && hit.until > Date.now()) return hit.record.service === service ? hit.record : undefined;
      const [row] = await db.query<ApiKeyRecord & { secret_hash: Buffer }>(
        `SELECT ${COLUMNS}, secret_hash FROM platform.api_keys WHERE prefix = $1 AND revoked_at IS NULL`,
        [parsed.prefix],
      );
      if (!row || !timingSafeEqual(row.secret_hash, hashSecret(parsed.secret))) return undefined;
      const { secret_hash: _, ...record } = row;
      if (cacheTtlMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(cacheKey, { record, until: Date.now() + cacheTtlMs });
      }
      return record.service === service ? record : undefined;
    },
  };
}
