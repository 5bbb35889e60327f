/**
 * LISTEN/NOTIFY on PostgreSQL: one dedicated connection outside the pool (a pooled client would be handed to
 * other queries, and its LISTENs would follow it). When that connection fails it is opened again with a
 * growing delay and every channel is listened to again; notifications sent meanwhile are lost, which is why
 * `Database.listen`'s readers also poll.
 */
import pg from "pg";
import type { Logger } from "pino";

type Handler = (payload: string) => void;

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The `listen` and `close` of a PostgreSQL database's notification connection. */
export function createPostgresNotifications(url: string, logger: Logger | undefined) {
  const handlers = new Map<string, Set<Handler>>();
  let client: pg.Client | undefined;
  /** The channels `client` is LISTENing to (marked before the statement runs, so none is sent twice). */
  let listened = new Set<string>();
  let connecting: Promise<pg.Client> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;

  /** LISTEN to the channels that have handlers, UNLISTEN the others (the client runs them in order). */
  async function sync(c: pg.Client): Promise<void> {
    const statements: string[] = [];
    for (const channel of handlers.keys()) {
      if (!listened.has(channel)) statements.push(`LISTEN ${quoteIdentifier(channel)}`);
      listened.add(channel);
    }
    for (const channel of listened) {
      if (handlers.has(channel)) continue;
      listened.delete(channel);
      statements.push(`UNLISTEN ${quoteIdentifier(channel)}`);
    }
    for (const statement of statements) await c.query(statement);
  }

  async function open(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url, keepAlive: true });
    c.on("notification", (message) => {
      for (const handler of handlers.get(message.channel) ?? []) {
        try {
          handler(message.payload ?? "");
        } catch (error) {
          logger?.error({ err: error, channel: message.channel }, "notification handler failed");
        }
      }
    });
    // Without an 'error' listener a dropped connection would crash the process; 'end' follows it.
    c.on("error", (error) => logger?.warn({ err: error }, "PostgreSQL notification connection failed"));
    c.on("end", () => {
      if (client !== c) return;
      client = undefined;
      if (!closed) reconnectLater();
    });
    try {
      await c.connect();
      listened = new Set();
      await sync(c);
    } catch (error) {
      await c.end().catch(() => {});
      throw error;
    }
    client = c;
    return c;
  }

  function connect(): Promise<pg.Client> {
    if (client) return Promise.resolve(client);
    connecting ??= open().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  function reconnectLater(): void {
    if (closed || retryTimer || handlers.size === 0) return;
    const delay = Math.min(FIRST_RETRY_MS * 2 ** failures, MAX_RETRY_MS);
    failures++;
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      try {
        await connect();
        failures = 0;
        logger?.info({ channels: [...handlers.keys()] }, "PostgreSQL notification connection re-established");
      } catch (error) {
        logger?.warn({ err: error }, "PostgreSQL notification connection: reconnection failed");
        reconnectLater();
      }
    }, delay);
    retryTimer.unref();
  }

  async function stop(channel: string, handler: Handler): Promise<void> {
    const set = handlers.get(channel);
    if (!set?.delete(handler)) return;
    if (set.size > 0) return;
    handlers.delete(channel);
    if (handlers.size === 0) {
      // Nothing left to hear: the connection is given back rather than kept idle.
      const c = client;
      client = undefined;
      listened = new Set();
      await c?.end().catch(() => {});
    } else if (client) {
      await sync(client);
    }
  }

  return {
    async listen(channel: string, onNotification: Handler): Promise<() => Promise<void>> {
      if (closed) throw new Error("the database is closed");
      const handler: Handler = (payload) => onNotification(payload);
      const set = handlers.get(channel) ?? new Set();
      set.add(handler);
      handlers.set(channel, set);
      // While a reconnection is pending, that attempt will LISTEN to the channel too.
      if (!retryTimer) {
        try {
          await sync(await connect());
        } catch (error) {
          await stop(channel, handler);
          throw error;
        }
      }
      return () => stop(channel, handler);
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retryTimer);
      handlers.clear();
      const c = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
