/**
 * One market data stream connection, as the anchor's (reference §3.2): `connected` on open, authentication by
 * the handshake's headers or an `auth` message within the auth timeout, then subscribe/unsubscribe and the
 * feed's messages, JSON or MessagePack.
 *
 * The connection holds one of its end user's stream slots (`DataStreamSlots`) from authentication to close,
 * renewed at every keepalive ping the client answered; a client that misses a pong is cut, which releases it.
 *
 * Decisions where the anchor says little:
 * - Closing errors (sent, then close 1008): 402 auth failed, 404 auth timeout, 406 connection limit exceeded,
 *   407 slow client, 409 insufficient subscription (sip on plan basic, at authentication, as the anchor's
 *   "error during authentication"), 411 insufficient scope (an OAuth token without `data`), 500 (1011).
 *   The others (400, 401, 403, 405, 410) are answered and the connection stays open, state unchanged.
 * - Failed credentials (a token or key pair that is looked up and not found, by `auth` or the handshake's
 *   headers) count against the client address as the data host's REST authentication does (kernel's limit,
 *   the same counters: one allowance for both). Over the limit, authentication is refused before any lookup
 *   with 402 `auth failed`, then close: the anchor's codes have no "too many attempts" (its 405 is the symbol
 *   limit, 406 the connection limit, which a client may retry differently), and 402 is the refusal of the
 *   credentials a client already handles. A missing credential, a token without `data` (411) or a user
 *   without stream settings do not count, as on REST.
 * - Symbols: well-formed for the feed (tickers on stock feeds, `BASE/QUOTE` on crypto) or 400 for the whole
 *   message (the anchor answers `BTCUSD` on the crypto feed so); a well-formed unknown symbol is accepted and
 *   listed, and receives nothing, as the anchor's.
 * - Plan basic: at most 30 symbols across trades and quotes, and no `*` there (405, nothing changes).
 * - Slow client: what waits to be written to the socket stays under `sendBufferLimit` bytes (one frame may go
 *   to an idle socket whatever its size); the frame that would pass it is replaced by 407 and the close.
 */
import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { WebSocket } from "ws";
import type { DataPrincipal } from "../../services/dataPrincipals.ts";
import type { DataStreamSettings } from "../../services/dataStreamSlots.ts";
import {
  authenticatedMessage,
  type Channel,
  type ControlMessage,
  connectedMessage,
  controlFrame,
  DATA_STREAM_ERRORS,
  type DataCredentials,
  type DataFeed,
  type DataStreamErrorCode,
  dataStreamError,
  emptySubscriptions,
  type FrameEncoding,
  handshakeCredentials,
  parseDataClientMessage,
  subscriptionMessage,
} from "../../stream/dataStreamMessages.ts";
import type { FeedReceiver } from "../../stream/marketFeedHub.ts";
import { closeSocket, frameBytes, keepAlive } from "../websocketLifecycle.ts";
import type { DataStreamOptions } from "./dataStreams.ts";

/** Messages waiting behind a slow authentication before the client is deemed abusive. */
const MAX_QUEUED_MESSAGES = 16;
/** Plan basic: symbols of trades and quotes together on one connection (the anchor's Basic plan). */
export const BASIC_PLAN_SYMBOL_LIMIT = 30;
const MSGPACK = /^application\/(x-)?msgpack\b/i;

/** An error that ends the connection: sent, then close (1008). */
const CLOSING_ERRORS: ReadonlySet<DataStreamErrorCode> = new Set([402, 404, 406, 407, 409, 411]);

/** Serves one upgraded data stream socket of `feed` until it closes. */
export function serveDataStream(
  socket: WebSocket,
  request: FastifyRequest,
  feed: DataFeed,
  options: DataStreamOptions,
): void {
  const { hub, slots, logger } = options;
  const encoding: FrameEncoding = MSGPACK.test(request.headers["content-type"] ?? "") ? "msgpack" : "json";
  const connectionId = randomUUID();
  const openedAt = Date.now();
  const subscriptions = emptySubscriptions(feed);
  let user: { id: string; settings: DataStreamSettings } | undefined;
  /** The user whose slot this connection holds (set as soon as it is taken, even while closing). */
  let slotOf: string | undefined;
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;
  let closing = false;

  const shut = (code: number, reason: string) => {
    if (closing) return;
    closing = true;
    hub.remove(receiver);
    closeSocket(socket, code, reason);
  };
  const write = (frame: Buffer): boolean => {
    if (closing || socket.readyState !== WebSocket.OPEN) return false;
    const waiting = socket.bufferedAmount;
    if (waiting > 0 && waiting + frame.byteLength > options.sendBufferLimit) {
      // Not guaranteed to reach a client that does not read, as the anchor's.
      socket.send(controlFrame(dataStreamError(407), encoding), { binary: encoding === "msgpack" });
      shut(1008, "slow client");
      return false;
    }
    socket.send(frame, { binary: encoding === "msgpack" });
    return true;
  };
  const send = (message: ControlMessage) => write(controlFrame(message, encoding));
  const fail = (code: DataStreamErrorCode) => {
    send(dataStreamError(code));
    if (CLOSING_ERRORS.has(code)) shut(1008, DATA_STREAM_ERRORS[code]);
  };
  const receiver: FeedReceiver = {
    encoding,
    tape: feed === "crypto" ? "crypto" : feed === "test" ? "test" : "stocks",
    deliver: (frame) => void write(frame),
  };

  const authTimer = setTimeout(() => fail(404), options.authTimeoutMs);

  // Keepalive and lease: a peer that has not answered the previous ping is cut; one that has keeps its slot.
  const stopKeepAlive = keepAlive(socket, options.pingIntervalMs, () => {
    if (slotOf && user && !closing) void keepSlot(user.id, user.settings.connections);
  });

  async function keepSlot(userId: string, limit: number): Promise<void> {
    try {
      // A lease that ran out (the database or Redis was unreachable) is taken again if it is still free.
      if (await slots.renew(userId, connectionId)) return;
      if (closing) return;
      if (!(await slots.acquire(userId, connectionId, limit))) fail(406);
    } catch (error) {
      logger.warn({ err: error }, "renewing a data stream slot failed");
    }
  }

  const identify = (credentials: DataCredentials): Promise<DataPrincipal | undefined> =>
    credentials.kind === "key"
      ? options.principals.byKeyPair(credentials.keyId, credentials.secret)
      : options.principals.byAccessToken(credentials.token);

  async function authenticate(credentials: DataCredentials | undefined): Promise<void> {
    if (user) return fail(403);
    if (!credentials) return fail(402);
    const limit = options.failedCredentials;
    // Before any lookup: an address over the limit learns nothing about its guess, and costs no query.
    if (limit && (await limit.retryAfterSec(request.ip)) > 0) return fail(402);
    const identity = await identify(credentials);
    if (!identity) await limit?.recordFailure(request.ip);
    if (closing) return;
    if (!identity) return fail(402);
    if (!identity.scopes.includes("data")) return fail(411);
    const settings = await slots.settingsOf(identity.userId);
    if (closing) return;
    if (!settings) return fail(402);
    if (feed === "sip" && settings.plan === "basic") return fail(409);
    const acquired = await slots.acquire(identity.userId, connectionId, settings.connections);
    if (acquired) slotOf = identity.userId;
    if (closing) return;
    if (!acquired) return fail(406);
    clearTimeout(authTimer);
    user = { id: identity.userId, settings };
    send(authenticatedMessage());
  }

  function change(action: "subscribe" | "unsubscribe", channels: Partial<Record<Channel, string[]>>) {
    if (!user) return fail(401);
    if (action === "subscribe" && user.settings.plan === "basic") {
      const limited = (["trades", "quotes"] as const).map(
        (c) => new Set([...(subscriptions.get(c) ?? []), ...(channels[c] ?? [])]),
      );
      const count = limited.reduce((n, set) => n + set.size, 0);
      if (count > BASIC_PLAN_SYMBOL_LIMIT || limited.some((set) => set.has("*"))) return fail(405);
    }
    for (const [channel, symbols] of Object.entries(channels) as [Channel, string[]][]) {
      const held = subscriptions.get(channel);
      if (!held) continue;
      const changed = symbols.filter((s) => (action === "subscribe") !== held.has(s));
      for (const s of changed) {
        if (action === "subscribe") held.add(s);
        else held.delete(s);
      }
      if (action === "subscribe") hub.subscribe(receiver, channel, changed);
      else hub.unsubscribe(receiver, channel, changed);
    }
    // Sent after subscribing, before any feed frame: the hub delivers on its next read.
    send(subscriptionMessage(feed, subscriptions));
  }

  async function handle(data: Buffer | DataCredentials | "invalid", isBinary: boolean): Promise<void> {
    if (data === "invalid") return fail(402);
    if (!Buffer.isBuffer(data)) return authenticate(data);
    const message = parseDataClientMessage(data, isBinary, encoding, feed);
    switch (message.kind) {
      case "invalid":
        return fail(message.code);
      case "auth":
        return authenticate(message.credentials);
      default:
        return change(message.kind, message.channels);
    }
  }

  const enqueue = (data: Buffer | DataCredentials | "invalid", isBinary: boolean) => {
    if (closing) return;
    if (queued >= MAX_QUEUED_MESSAGES) return shut(1008, "too many messages");
    queued++;
    queue = queue
      .then(() => handle(data, isBinary))
      .catch((error) => {
        logger.error({ err: error }, "data stream message failed");
        send(dataStreamError(500));
        shut(1011, "internal error");
      })
      .finally(() => {
        queued--;
      });
  };

  socket.on("message", (data, isBinary) => enqueue(frameBytes(data), isBinary));
  socket.on("close", (code) => {
    closing = true;
    clearTimeout(authTimer);
    stopKeepAlive();
    hub.remove(receiver);
    // After a pending acquisition settles, so a slot taken while closing is released too.
    options.track(
      queue.then(async () => {
        if (!slotOf) return;
        await slots.release(slotOf, connectionId).catch((error) => {
          logger.warn({ err: error }, "releasing a data stream slot failed; it expires with its lease");
        });
      }),
    );
    logger.info({ user: user?.id, feed, code, encoding, ms: Date.now() - openedAt }, "data stream closed");
  });

  send(connectedMessage());
  const fromHandshake = handshakeCredentials(request.headers);
  if (fromHandshake) enqueue(fromHandshake, false);
}
