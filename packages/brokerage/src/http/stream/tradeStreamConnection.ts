/**
 * One `/stream` connection, as the anchor's trade-update stream (reference §3.1): authenticate by message,
 * then `listen` to `trade_updates` and receive the account's events in order.
 *
 * Decisions where the anchor says nothing:
 * - A failed `authenticate` is answered `unauthorized`, then the connection is closed (1008): credentials
 *   are not guessed over one socket. `listen` before authenticating is answered `unauthorized` (action
 *   `listen`) and the connection stays open.
 * - Re-authenticating an authenticated socket is checked like the first time: success rebinds the socket to
 *   the new account (a `trade_updates` subscription moves to it, from the hub's cursor at that moment);
 *   failure closes it as above.
 * - An OAuth token needs the `trading` or the `data` scope (a read-only token is `unauthorized`), and, as a key
 *   pair, must open an account of this host's environment.
 * - Malformed or unknown messages are answered `{"action":"error",…}` and the connection stays open.
 * - Failed credentials count against the client address as the host's REST authentication does (kernel's
 *   limit, the same counters, so the REST requests and the stream share one allowance); over the limit,
 *   `authenticate` is answered `unauthorized` before any lookup and the connection is closed (1008, reason
 *   `too many failed authentication attempts`): the anchor's protocol has no other refusal. Only a credential that was looked up and not found (or opens an
 *   account of the other environment) counts, as on REST; a missing one or a token without the scope does not.
 * - Without a successful `authenticate` within the auth timeout: an `auth timeout` error, then close (1008).
 * - A client that does not read (its send buffer over the limit) is closed with 1008 "slow client"; one that
 *   does not answer a ping before the next is cut.
 */
import type { FastifyRequest } from "fastify";
import { WebSocket } from "ws";
import type { Scope } from "../../domain/scopes.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import {
  authorizationMessage,
  type Credentials,
  encodeFrame,
  errorMessage,
  type FrameEncoding,
  listeningMessage,
  parseClientMessage,
  type StreamName,
  tradeUpdateMessage,
} from "../../stream/tradeUpdateMessages.ts";
import { closeSocket, frameBytes, keepAlive } from "../websocketLifecycle.ts";
import type { TradeStreamParameters } from "./tradeStream.ts";

/** Either is enough to receive the account's trade updates over OAuth. */
const STREAM_SCOPES: readonly Scope[] = ["trading", "data"];
/** Messages waiting behind a slow authentication before the client is deemed abusive. */
const MAX_QUEUED_MESSAGES = 16;
export type ConnectionOptions = Required<
  Pick<TradeStreamParameters, "env" | "accountForBearer" | "keyPairs" | "hub" | "logger">
> &
  Pick<TradeStreamParameters, "failedCredentials"> & {
    authTimeoutMs: number;
    pingIntervalMs: number;
    sendBufferLimit: number;
  };

const MSGPACK = /^application\/(x-)?msgpack\b/i;

/** Serves one upgraded `/stream` socket until it closes. */
export function serveTradeStream(socket: WebSocket, request: FastifyRequest, options: ConnectionOptions): void {
  const { env, hub, logger } = options;
  const encoding: FrameEncoding = MSGPACK.test(request.headers["content-type"] ?? "") ? "msgpack" : "json";
  const openedAt = Date.now();
  let account: AccountRow | undefined;
  let unsubscribe: (() => void) | undefined;
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;
  let closing = false;

  const stopListening = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  const shut = (code: number, reason: string) => {
    if (closing) return;
    closing = true;
    stopListening();
    closeSocket(socket, code, reason);
  };
  const send = (message: unknown) => {
    if (closing || socket.readyState !== WebSocket.OPEN) return;
    const frame = encodeFrame(message, encoding);
    // Bounded memory per connection: what the client has not read yet stays under the limit.
    if (socket.bufferedAmount + frame.byteLength > options.sendBufferLimit) return shut(1008, "slow client");
    socket.send(frame, { binary: true });
  };
  const subscribe = (to: AccountRow) => {
    stopListening();
    unsubscribe = hub.subscribe(to.id, (event) => send(tradeUpdateMessage(event)));
  };

  const authTimer = setTimeout(() => {
    send(errorMessage("auth timeout"));
    shut(1008, "auth timeout");
  }, options.authTimeoutMs);

  const stopKeepAlive = keepAlive(socket, options.pingIntervalMs);

  /** The account the credentials open, or why not: `unknown` counts as a failed credential, `refused` not. */
  async function accountFor(credentials: Credentials): Promise<AccountRow | "unknown" | "refused"> {
    if (credentials.kind === "key") {
      const opened = await options.keyPairs.authenticate(credentials.keyId, credentials.secret);
      return opened?.env === env ? opened : "unknown";
    }
    const grant = await options.accountForBearer(credentials.token, env);
    if (!grant || grant.account.env !== env) return "unknown";
    return grant.scopes.some((s) => STREAM_SCOPES.includes(s)) ? grant.account : "refused";
  }

  /**
   * The account `authenticate` opens; undefined when it opens none (a failure counted where the REST hosts
   * count one), `throttled` when the client's address is over the limit.
   */
  async function authenticate(credentials: Credentials | undefined): Promise<AccountRow | "throttled" | undefined> {
    if (!credentials) return undefined;
    const limit = options.failedCredentials;
    // Before any lookup: an address over the limit learns nothing about its guess, and costs no query.
    if (limit && (await limit.retryAfterSec(request.ip)) > 0) return "throttled";
    const opened = await accountFor(credentials);
    if (opened === "unknown") await limit?.recordFailure(request.ip);
    return typeof opened === "string" ? undefined : opened;
  }

  async function handle(data: Buffer, isBinary: boolean): Promise<void> {
    const message = parseClientMessage(data, isBinary, encoding);
    switch (message.kind) {
      case "invalid":
        return send(errorMessage(message.error));
      case "authenticate": {
        const opened = await authenticate(message.credentials);
        if (closing) return;
        if (!opened || opened === "throttled") {
          send(authorizationMessage("unauthorized", "authenticate"));
          // The close reason (not a message: the anchor has none) tells a client why it should wait.
          return shut(1008, opened ? "too many failed authentication attempts" : "unauthorized");
        }
        clearTimeout(authTimer);
        const moved = account?.id !== opened.id;
        account = opened;
        if (unsubscribe && moved) subscribe(opened);
        return send(authorizationMessage("authorized", "authenticate"));
      }
      case "listen": {
        if (!account) return send(authorizationMessage("unauthorized", "listen"));
        const streams: StreamName[] = message.streams;
        if (streams.includes("trade_updates")) {
          if (!unsubscribe) subscribe(account);
        } else {
          stopListening();
        }
        // Sent after subscribing, before any event: the hub delivers asynchronously.
        return send(listeningMessage(streams));
      }
    }
  }

  socket.on("message", (data, isBinary) => {
    if (closing) return;
    if (queued >= MAX_QUEUED_MESSAGES) return shut(1008, "too many messages");
    queued++;
    const bytes = frameBytes(data);
    queue = queue
      .then(() => handle(bytes, isBinary))
      .catch((error) => {
        logger.error({ err: error }, "trade stream message failed");
        send(errorMessage("internal server error"));
        shut(1011, "internal server error");
      })
      .finally(() => {
        queued--;
      });
  });

  socket.on("close", (code) => {
    closing = true;
    clearTimeout(authTimer);
    stopKeepAlive();
    stopListening();
    logger.info(
      { account: account?.account_number, env, code, encoding, ms: Date.now() - openedAt },
      "trade stream closed",
    );
  });
}
