/**
 * The market data streams of the data host, as the anchor's (`wss://stream.data.alpaca.markets/...`):
 * `GET /v2/:feed` for the stock feeds `iex`, `sip` (plan plus) and `test` (`FAKEPACA`), and
 * `GET /v1beta3/crypto/:loc` for the crypto feed (`us`). Another feed or location is refused at the handshake
 * with 404. One connection's protocol is `dataStreamConnection.ts`'s; the messages come from the process's
 * `MarketFeedHub`, the connection limit from `DataStreamSlots`.
 *
 * The routes are not OpenAPI operations (@fastify/websocket hides WebSocket routes). The server's `close()`
 * closes every socket with 1001 and cuts, after a short grace, the peers that do not answer, then waits for
 * their slots to be released.
 */
import websocket from "@fastify/websocket";
import type { FailedCredentials, HttpServer, Logger } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import type { DataPrincipals } from "../../services/dataPrincipals.ts";
import type { DataStreamSlots } from "../../services/dataStreamSlots.ts";
import {
  CRYPTO_LOCATIONS,
  type DataFeed,
  MAX_DATA_CLIENT_MESSAGE_BYTES,
  STOCK_FEEDS,
} from "../../stream/dataStreamMessages.ts";
import type { MarketFeedHub } from "../../stream/marketFeedHub.ts";
import { closeAllSockets } from "../websocketLifecycle.ts";
import { serveDataStream } from "./dataStreamConnection.ts";

export interface DataStreamsParameters {
  /** Who a credential is (services/dataPrincipals.ts). */
  principals: DataPrincipals;
  /** The process's connection slots (PostgreSQL, or Redis with REDIS_URL), shared by every instance. */
  slots: Pick<DataStreamSlots, "settingsOf" | "acquire" | "renew" | "release" | "leaseSeconds">;
  /** The process's market feed hub. */
  hub: Pick<MarketFeedHub, "subscribe" | "unsubscribe" | "remove">;
  logger: Logger;
  /**
   * Unknown tokens and key pairs per client address (kernel's limit, the data host's REST counters: one
   * allowance for both); over it, authentication is refused before any lookup. Without it nothing is counted.
   */
  failedCredentials?: FailedCredentials;
  /** How long a connection may stay without a successful authentication (default 10 s, the anchor's). */
  authTimeoutMs?: number;
  /** Period of the keepalive ping and of the slot's renewal (default a third of the slot lease). */
  pingIntervalMs?: number;
  /** Bytes a connection may have waiting to be written before it is cut as a slow client (default 1 MiB). */
  sendBufferLimit?: number;
}

export type DataStreamOptions = Required<Pick<DataStreamsParameters, "principals" | "slots" | "hub" | "logger">> &
  Pick<DataStreamsParameters, "failedCredentials"> & {
    authTimeoutMs: number;
    pingIntervalMs: number;
    sendBufferLimit: number;
    /** Keeps a slot release in flight, so that a shutdown waits for it. */
    track(release: Promise<void>): void;
  };

/** What the registration gives back: the open sockets (for measurements and tests). */
export interface DataStreams {
  clients(): ReadonlySet<WebSocket>;
}

const stockFeed = (feed: string): DataFeed | undefined =>
  (STOCK_FEEDS as readonly string[]).includes(feed) ? (feed as DataFeed) : undefined;

const notFound = (reply: FastifyReply) => reply.code(404).send({ code: 40410000, message: "not found" });

/** Registers the data streams (WebSocket routes) on the data host. */
export async function registerDataStreams(app: HttpServer, parameters: DataStreamsParameters): Promise<DataStreams> {
  const releases = new Set<Promise<void>>();
  const options: DataStreamOptions = {
    principals: parameters.principals,
    slots: parameters.slots,
    hub: parameters.hub,
    logger: parameters.logger,
    failedCredentials: parameters.failedCredentials,
    authTimeoutMs: parameters.authTimeoutMs ?? 10_000,
    pingIntervalMs: parameters.pingIntervalMs ?? Math.max(100, (parameters.slots.leaseSeconds * 1000) / 3),
    sendBufferLimit: parameters.sendBufferLimit ?? 1024 * 1024,
    track(release) {
      releases.add(release);
      void release.finally(() => releases.delete(release));
    },
  };
  let clients: ReadonlySet<WebSocket> = new Set();
  await app.register(async (scope) => {
    await scope.register(websocket, {
      options: { maxPayload: MAX_DATA_CLIENT_MESSAGE_BYTES },
      async preClose() {
        await closeAllSockets(scope.websocketServer.clients);
        scope.websocketServer.close();
        // The closed connections' slots are free before the instance goes (not only after their lease).
        await Promise.all(releases);
      },
    });
    clients = scope.websocketServer.clients;

    scope.get<{ Params: { feed: string } }>(
      "/v2/:feed",
      {
        websocket: true,
        preValidation: async (request: FastifyRequest<{ Params: { feed: string } }>, reply) => {
          if (!stockFeed(request.params.feed)) return notFound(reply);
        },
      },
      (socket, request) => serveDataStream(socket, request, stockFeed(request.params.feed) ?? "iex", options),
    );
    scope.get<{ Params: { loc: string } }>(
      "/v1beta3/crypto/:loc",
      {
        websocket: true,
        preValidation: async (request: FastifyRequest<{ Params: { loc: string } }>, reply) => {
          if (!(CRYPTO_LOCATIONS as readonly string[]).includes(request.params.loc)) return notFound(reply);
        },
      },
      (socket, request) => serveDataStream(socket, request, "crypto", options),
    );
  });
  return { clients: () => clients };
}
