/**
 * `GET /stream` of the live and paper hosts: the anchor's trade-update WebSocket (`wss://api.alpaca.markets/
 * stream`, `wss://paper-api.alpaca.markets/stream`). It authenticates by message, not by header, so it sits
 * outside the trading routes' authentication hook (its own plugin scope); the messages and frames are
 * `stream/tradeUpdateMessages.ts`'s, one connection's rules `tradeStreamConnection.ts`'s, the events come from
 * the process's `TradeUpdatesHub`.
 *
 * The route is not an OpenAPI operation (@fastify/websocket hides WebSocket routes; OpenAPI 3.1 has no way to
 * describe the messages). The server's `close()` closes every socket with 1001 and cuts, after a short grace,
 * those whose peer does not answer, so a shutdown never waits on a client.
 */
import websocket from "@fastify/websocket";
import type { HttpServer, Logger } from "@platform/kernel";
import { MAX_CLIENT_MESSAGE_BYTES } from "../../stream/tradeUpdateMessages.ts";
import type { TradeUpdatesHub } from "../../stream/tradeUpdatesHub.ts";
import type { TradingAuthParameters } from "../trading/tradingAuth.ts";
import { closeAllSockets } from "../websocketLifecycle.ts";
import { serveTradeStream } from "./tradeStreamConnection.ts";

export interface TradeStreamParameters
  extends Pick<TradingAuthParameters, "env" | "accountForBearer" | "keyPairs" | "failedCredentials"> {
  /** The process's hub (one for every host). */
  hub: Pick<TradeUpdatesHub, "subscribe">;
  logger: Logger;
  /** How long a connection may stay without a successful `authenticate` (default 10 s). */
  authTimeoutMs?: number;
  /** Period of the keepalive ping; a peer that misses one answer is cut (default 30 s). */
  pingIntervalMs?: number;
  /** Bytes a connection may have waiting to be read before it is closed as a slow client (default 1 MiB). */
  sendBufferLimit?: number;
}

/** Registers `GET /stream` (WebSocket) on a trading host of environment `env`. */
export async function registerTradeStream(app: HttpServer, parameters: TradeStreamParameters): Promise<void> {
  const options = {
    env: parameters.env,
    accountForBearer: parameters.accountForBearer,
    keyPairs: parameters.keyPairs,
    failedCredentials: parameters.failedCredentials,
    hub: parameters.hub,
    logger: parameters.logger,
    authTimeoutMs: parameters.authTimeoutMs ?? 10_000,
    pingIntervalMs: parameters.pingIntervalMs ?? 30_000,
    sendBufferLimit: parameters.sendBufferLimit ?? 1024 * 1024,
  };
  await app.register(async (scope) => {
    await scope.register(websocket, {
      // Larger frames close the connection (1009) before they are buffered.
      options: { maxPayload: MAX_CLIENT_MESSAGE_BYTES },
      async preClose() {
        await closeAllSockets(scope.websocketServer.clients);
        scope.websocketServer.close();
      },
    });
    scope.get("/stream", { websocket: true }, (socket, request) => serveTradeStream(socket, request, options));
  });
}
