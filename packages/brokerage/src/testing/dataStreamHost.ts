/**
 * A testbed for the market data streams: a brokerage database with the real accounts, key pairs, codes and
 * tokens services; data hosts started as the platform starts them (kernel `createHttpServer`, the streams in
 * their own scope), each with the slots and hub it is given; a client that reads the anchor's array frames
 * (JSON or MessagePack) message by message; and `writeFeed`, which appends feed messages as the recorder does
 * (rows + NOTIFY in one transaction).
 */
import { randomUUID } from "node:crypto";
import { createLogger, type Database, type Queryable } from "@platform/kernel";
import type { WebSocket } from "ws";
import type { Scope } from "../domain/scopes.ts";
import { type DataStreams, type DataStreamsParameters, registerDataStreams } from "../http/dataStream/dataStreams.ts";
import { createDataPrincipals } from "../services/dataPrincipals.ts";
import { createDataStreamSlots, type DataStreamSlots } from "../services/dataStreamSlots.ts";
import type { AccountRow } from "../store/accountsRepository.ts";
import { createMarketFeedHub, MARKET_FEED_CHANNEL, type MarketFeedHub } from "../stream/marketFeedHub.ts";
import { connectSocketTestClient } from "./socketTestClient.ts";
import { createTradingTestBed } from "./tradingTestHosts.ts";

export type DataMessage = Record<string, unknown> & { T: string };

export interface DataStreamClient {
  socket: WebSocket;
  /** Every message received so far (frames flattened), in order; `frames` the frames as arrays. */
  received: DataMessage[];
  frames: { messages: DataMessage[]; binary: boolean; bytes: Buffer }[];
  send(message: unknown): void;
  /** The next message after the last one returned that `predicate` accepts; rejects on timeout or close. */
  next(predicate?: (message: DataMessage) => boolean, timeoutMs?: number): Promise<DataMessage>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export interface ConnectDataStreamOptions {
  msgpack?: boolean;
  headers?: Record<string, string>;
  autoPong?: boolean;
}

/** Opens `url`; resolves once the handshake is done (rejects on a refused handshake). */
export async function connectDataStream(
  url: string,
  options: ConnectDataStreamOptions = {},
): Promise<DataStreamClient> {
  const frames: DataStreamClient["frames"] = [];
  const client = await connectSocketTestClient<DataMessage>(
    url,
    ({ decoded, binary, bytes }) => {
      const messages = decoded as DataMessage[];
      frames.push({ messages, binary, bytes });
      return messages;
    },
    options,
  );
  return { ...client, frames };
}

/** A feed message to append: its channel and the stream message (`S` is its symbol). */
export interface FeedEntry {
  channel: string;
  message: Record<string, unknown> & { S: string };
}

/** Appends `entries` to `brokerage.market_feed` and notifies, in one transaction, as the writers do. */
export async function writeFeed(db: Database, entries: FeedEntry[]): Promise<void> {
  await db.transaction(async (tx: Queryable) => {
    let last = "0";
    for (const { channel, message } of entries) {
      const [row] = await tx.query<{ seq: string }>(
        "INSERT INTO brokerage.market_feed (symbol, channel, message) VALUES ($1, $2, $3) RETURNING seq",
        [message.S, channel, JSON.stringify(message)],
      );
      last = row?.seq ?? last;
    }
    await tx.query("SELECT pg_notify($1, $2)", [MARKET_FEED_CHANNEL, last]);
  });
}

export type DataHostOptions = Partial<
  Pick<DataStreamsParameters, "authTimeoutMs" | "pingIntervalMs" | "sendBufferLimit" | "slots" | "hub">
>;

export interface DataHost {
  streams: DataStreams;
  /** `ws://127.0.0.1:<port>` */
  wsOrigin: string;
  origin: string;
  close(): Promise<void>;
}

export async function createDataStreamTestbed({ leaseSeconds = 15 }: { leaseSeconds?: number } = {}) {
  const bed = await createTradingTestBed();
  const { db } = bed.fixture.database;
  const logger = createLogger({ level: "silent" });
  const hubs: MarketFeedHub[] = [];
  const slotStores: DataStreamSlots[] = [];
  const otherClient = await bed.fixture.createClient();
  // One prefix for the bed: every instance's Redis slots meet under it, and no other run's.
  const redisPrefix = `test:data-stream-slots:${randomUUID()}:`;

  const createHub = (on: Database = db) => {
    const hub = createMarketFeedHub({ db: on, logger, pollIntervalMs: 60_000 });
    hubs.push(hub);
    return hub;
  };
  const createSlots = (parameters: { on?: Database; redisUrl?: string; leaseSeconds?: number } = {}) => {
    const slots = createDataStreamSlots({
      db: parameters.on ?? db,
      leaseSeconds: parameters.leaseSeconds ?? leaseSeconds,
      redisUrl: parameters.redisUrl,
      redisPrefix,
    });
    slotStores.push(slots);
    return slots;
  };
  const hub = createHub();
  const slots = createSlots();

  return {
    db,
    /** The database's URL (another connection to it plays another instance; PostgreSQL only). */
    databaseUrl: bed.fixture.database.url,
    hub,
    slots,
    createHub,
    createSlots,
    keyPairs: bed.keyPairs,

    /** A new user (one live, one paper account), with its data settings. */
    async user(settings: { plan?: "basic" | "plus"; connections?: number } = {}) {
      const user = await bed.fixture.createUser(1);
      await db.query("UPDATE brokerage.users SET data_plan = $2, data_stream_connections = $3 WHERE id = $1", [
        user.id,
        settings.plan ?? "basic",
        settings.connections ?? 1,
      ]);
      return { id: user.id, live: user.accounts[0] as AccountRow, paper: user.accounts[1] as AccountRow };
    },

    /** A real access token of the user (bound to its live account), issued to the bed's app or another one. */
    async token(user: { id: string; live: AccountRow }, scopes: Scope[], app: "first" | "second" = "first") {
      if (app === "first") return bed.token(user.id, { live: user.live }, scopes);
      const redirectUri = otherClient.redirect_uris[0] as string;
      const code = await bed.fixture.codes.issue({
        clientId: otherClient.client_id,
        userId: user.id,
        redirectUri,
        scopes,
        liveAccountId: user.live.id,
      });
      const grant = await bed.fixture.tokens.exchangeCode({ code, clientId: otherClient.client_id, redirectUri });
      return grant.access_token;
    },

    /** A data host on an ephemeral port with the bed's slots and hub unless given others. */
    async startHost(options: DataHostOptions = {}): Promise<DataHost> {
      let streams: DataStreams | undefined;
      const { app, origin } = await bed.startHost("live", {
        title: "Data stream test",
        beside: async (server) => {
          streams = await registerDataStreams(server, {
            principals: createDataPrincipals({ tokens: bed.fixture.tokens, keyPairs: bed.keyPairs }),
            slots: options.slots ?? slots,
            hub: options.hub ?? hub,
            logger,
            authTimeoutMs: options.authTimeoutMs,
            pingIntervalMs: options.pingIntervalMs,
            sendBufferLimit: options.sendBufferLimit,
          });
        },
      });
      return {
        streams: streams as DataStreams,
        wsOrigin: origin.replace(/^http/, "ws"),
        origin,
        close: () => app.close(),
      };
    },

    async close(): Promise<void> {
      await bed.stopHosts();
      for (const h of hubs) await h.close();
      for (const s of slotStores) await s.close();
      await bed.close();
    },
  };
}

export type DataStreamTestbed = Awaited<ReturnType<typeof createDataStreamTestbed>>;
