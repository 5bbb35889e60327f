/**
 * The market data streams' connection limit (the anchor's "one active stream connection" per user, whichever
 * application or key connects): a connection holds a slot of its end user from authentication to close. Slots
 * are leases: renewed every lease/3 while the client answers pings, released at once on close, and an instance
 * that dies without releasing leaves slots that expire after `leaseSeconds`, so no slot is lost for longer.
 *
 * Two backends, one contract: PostgreSQL (`brokerage.data_stream_slots`, acquisitions of a user serialized on
 * the user's row), or Redis when `REDIS_URL` is set (a sorted set per user, member = connection, score = expiry
 * in ms on Redis's clock, every step one Lua script). Either is shared by every API instance. The settings
 * (limit, plan) always come from PostgreSQL's users table.
 *
 * Not the kernel's leases (`platform.leases`), on purpose: a slot is one of a user's N (a counting limit read
 * at each acquisition, not one holder per name), held by api instances for end users' connections (thousands,
 * renewed in one statement per batch, and in Redis when configured), with nothing to fence; as kernel leases
 * they would be N names per user tried one by one, rows kept forever per user (a released lease keeps its row),
 * all listed by `platform status` among the leases that say which worker runs what.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Database } from "@platform/kernel";
import { Redis } from "ioredis";
import { createDataStreamSlotsRepository, type DataStreamSettings } from "../store/dataStreamSlotsRepository.ts";

export type { DataStreamSettings } from "../store/dataStreamSlotsRepository.ts";

export interface DataStreamSlots {
  /** The user's stream settings (connection limit and plan); undefined for an unknown user. */
  settingsOf(userId: string): Promise<DataStreamSettings | undefined>;
  /** Takes a slot for `connectionId` if the user holds fewer than `limit`; false when the limit is reached. */
  acquire(userId: string, connectionId: string, limit: number): Promise<boolean>;
  /** Extends the slot by the lease; false when it had expired (the connection must acquire again). */
  renew(userId: string, connectionId: string): Promise<boolean>;
  /** Frees the slot at once. */
  release(userId: string, connectionId: string): Promise<void>;
  /** The user's unexpired slots. */
  held(userId: string): Promise<number>;
  /** The lease, in seconds. */
  readonly leaseSeconds: number;
  close(): Promise<void>;
}

export interface CreateDataStreamSlotsParameters {
  db: Database;
  /** Lease of a slot (config `brokerageDataStreamLease`, default 15 s); fractions allowed (tests). */
  leaseSeconds?: number;
  /** Redis holds the slots when given (`REDIS_URL`). */
  redisUrl?: string;
  /** Prefix of the Redis keys (default `brokerage:data-stream-slots:`). */
  redisPrefix?: string;
  /** Names this process in the slot rows (default host:pid:random). */
  instance?: string;
}

/**
 * KEYS[1] the user's set; ARGV: connection, limit, lease ms. Drops expired members, then takes (or keeps)
 * the connection's slot unless the others already fill the limit. Redis's own clock, as every instance.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local others = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then others = others - 1 end
if others >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

/** KEYS[1] the user's set; ARGV: connection, lease ms. Extends an unexpired slot; 0 when it had expired. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expires or tonumber(expires) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
return 1`;

/** KEYS[1] the user's set: how many unexpired slots it holds. */
const HELD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

/**
 * Renewals asked within `windowMs` of each other go to the database as one statement: an instance's
 * connections renew every lease/3, and a thousand of them would otherwise be a thousand updates.
 */
function batchRenewals(
  renew: (ids: string[]) => Promise<Set<string>>,
  windowMs = 20,
): (connectionId: string) => Promise<boolean> {
  let batch: Map<string, ((renewed: boolean) => void)[]> | undefined;
  let failures: ((error: unknown) => void)[] = [];
  return (connectionId) =>
    new Promise<boolean>((resolve, reject) => {
      if (!batch) {
        const current = new Map<string, ((renewed: boolean) => void)[]>();
        const rejecters: ((error: unknown) => void)[] = [];
        batch = current;
        failures = rejecters;
        setTimeout(() => {
          batch = undefined;
          renew([...current.keys()]).then(
            (renewed) => {
              for (const [id, waiters] of current) for (const done of waiters) done(renewed.has(id));
            },
            (error) => {
              for (const fail of rejecters) fail(error);
            },
          );
        }, windowMs);
      }
      batch.set(connectionId, [...(batch.get(connectionId) ?? []), resolve]);
      failures.push(reject);
    });
}

export function createDataStreamSlots({
  db,
  leaseSeconds = 15,
  redisUrl,
  redisPrefix = "brokerage:data-stream-slots:",
  instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
}: CreateDataStreamSlotsParameters): DataStreamSlots {
  const repository = createDataStreamSlotsRepository(db);
  const settingsOf = (userId: string) => repository.settingsOf(userId);

  if (redisUrl) {
    // Auto-pipelining: the renewals of many connections at one tick travel together.
    const redis = new Redis(redisUrl, {
      lazyConnect: false,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      enableAutoPipelining: true,
    });
    const key = (userId: string) => `${redisPrefix}${userId}`;
    const leaseMs = Math.max(1, Math.round(leaseSeconds * 1000));
    return {
      leaseSeconds,
      settingsOf,
      async acquire(userId, connectionId, limit) {
        return Number(await redis.eval(ACQUIRE, 1, key(userId), connectionId, limit, leaseMs)) === 1;
      },
      async renew(userId, connectionId) {
        return Number(await redis.eval(RENEW, 1, key(userId), connectionId, leaseMs)) === 1;
      },
      async release(userId, connectionId) {
        await redis.zrem(key(userId), connectionId);
      },
      async held(userId) {
        return Number(await redis.eval(HELD, 1, key(userId)));
      },
      async close() {
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }

  const renewals = batchRenewals((ids) => repository.renew(ids, leaseSeconds));
  return {
    leaseSeconds,
    settingsOf,
    acquire: (userId, connectionId, limit) =>
      db.transaction((tx) => repository.acquire(tx, { userId, connectionId, instance, limit, leaseSeconds })),
    renew: (_userId, connectionId) => renewals(connectionId),
    release: (_userId, connectionId) => repository.release(connectionId),
    held: (userId) => repository.held(userId),
    async close() {},
  };
}
