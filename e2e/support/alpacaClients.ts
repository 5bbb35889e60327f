/**
 * What the end-to-end test with Alpaca's official client (`@alpacahq/alpaca-trade-api` 4) needs around the
 * brokerage: a user whose live and paper accounts are authorized for an application by a real OAuth access
 * token (code issued as the consent page issues it, exchanged over HTTP at `POST /oauth/token`), the
 * client's generated API classes pointed at one of our hosts, its `TradingStream` speaking OAuth, and
 * polling with a deadline.
 *
 * The client is used unmodified: `basePath` is its documented override (reference §4.1), and the OAuth
 * stream only overrides the protected `sendAuth()` hook, since 4.0.2's streams know key pairs only.
 */
import { streaming, trading } from "@alpacahq/alpaca-trade-api";
import { accountsOf, type TradingHost } from "@platform/brokerage/testing";

export type TradingEnv = "live" | "paper";

/** One account of an `AlpacaUser`, with a key pair (the streams' native authentication). */
export interface AlpacaAccount {
  accountId: string;
  keyId: string;
  secret: string;
}

export interface AlpacaUser {
  userId: string;
  /** One token for both accounts, with every scope (`account:write trading data`). */
  accessToken: string;
  live: AlpacaAccount;
  paper: AlpacaAccount;
}

const REDIRECT_URI = "http://127.0.0.1:8765/callback";
let users = 0;

/**
 * A new user with $100,000 in a live and a paper account, both authorized for a new application: the code
 * comes from the codes service (what the consent page's "Allow" does), the token from the live host's
 * token endpoint, over HTTP with `client_secret_post` as Alpaca documents it.
 */
export async function createAlpacaUser(host: TradingHost): Promise<AlpacaUser> {
  const { users: usersService, clients, codes, keyPairs } = host.instance.services;
  const user = await usersService.create({
    email: `alpaca-client-${++users}-${Date.now()}@example.com`,
    password: "correct horse battery",
    startingCash: "100000",
  });
  const { live, paper } = accountsOf(user);
  const client = await clients.create({ name: "Alpaca client e2e", redirectUris: [REDIRECT_URI] });
  const code = await codes.issue({
    clientId: client.client_id,
    userId: user.id,
    redirectUri: REDIRECT_URI,
    scopes: ["account:write", "trading", "data"],
    liveAccountId: live.id,
    paperAccountId: paper[0].id,
  });
  const response = await fetch(`${host.urls[""]}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uri: REDIRECT_URI,
    }),
  });
  const grant = (await response.json()) as { access_token?: string; token_type?: string; scope?: string };
  if (response.status !== 200 || grant.token_type !== "bearer" || grant.scope !== "account:write trading data") {
    throw new Error(`token exchange answered ${response.status} ${JSON.stringify(grant)}`);
  }
  const withKeys = async (accountId: string): Promise<AlpacaAccount> => {
    const { key_id: keyId, secret_key: secret } = await keyPairs.create({ accountId });
    return { accountId, keyId, secret };
  };
  return {
    userId: user.id,
    accessToken: grant.access_token as string,
    live: await withKeys(live.id),
    paper: await withKeys(paper[0].id),
  };
}

/** Origin of a trading host (`http://127.0.0.1:<port>`). */
export const originOf = (host: TradingHost, env: TradingEnv): string =>
  (env === "live" ? host.urls[""] : host.urls.paper) as string;

/** WebSocket URL of a trading host's trade-update stream. */
export const streamUrlOf = (host: TradingHost, env: TradingEnv): string =>
  `${originOf(host, env).replace(/^http/, "ws")}/stream`;

/**
 * The client's generated trading API classes on one host with an OAuth token. Its retries are off (the
 * default, said explicitly) and no client-side rate limit is configured, so every call is one request and
 * an error is the server's answer.
 */
export function tradingApis(basePath: string, accessToken: string) {
  const configuration = new trading.Configuration({ basePath, accessToken, retry: { maxRetries: 0 } });
  return {
    accounts: new trading.AccountsApi(configuration),
    orders: new trading.OrdersApi(configuration),
    positions: new trading.PositionsApi(configuration),
    activities: new trading.AccountActivitiesApi(configuration),
    configurations: new trading.AccountConfigurationsApi(configuration),
    watchlists: new trading.WatchlistsApi(configuration),
    clock: new trading.ClockApi(configuration),
    calendar: new trading.CalendarApi(configuration),
    assets: new trading.AssetsApi(configuration),
    portfolioHistory: new trading.PortfolioHistoryApi(configuration),
  };
}
export type TradingApis = ReturnType<typeof tradingApis>;

/**
 * The client's `TradingStream` authenticating with an OAuth token, as Alpaca's trade-update stream accepts
 * (`{"action":"authenticate","data":{"oauth_token":…}}`, reference §1.3): the token travels as the secret of
 * the credentials the base class insists on.
 */
export class OAuthTradingStream extends streaming.TradingStream {
  constructor(options: Omit<streaming.TradingStreamOptions, "credentials"> & { accessToken: string }) {
    const { accessToken, ...rest } = options;
    super({ ...rest, credentials: { keyId: "oauth", secret: accessToken } });
  }

  protected override sendAuth(): void {
    this.send({ action: "authenticate", data: { oauth_token: this.secret } });
  }
}

/** The trade updates a stream received, and a way to wait for the next ones. */
export interface TradeUpdateLog {
  updates: streaming.TradeUpdate[];
  /** Resolves with the first update (already received or to come) that matches, or rejects after `timeoutMs`. */
  first(match: (update: streaming.TradeUpdate) => boolean, timeoutMs?: number): Promise<streaming.TradeUpdate>;
}

/**
 * Connects `stream` with `trade_updates` subscribed (before connecting, so the client sends one `listen`
 * after authenticating) and resolves once the server acknowledged the subscription: orders placed after
 * that are seen. Rejects when authentication fails or nothing is acknowledged within `timeoutMs`.
 */
export async function listenToTradeUpdates(
  stream: streaming.TradingStream,
  timeoutMs = 5_000,
): Promise<TradeUpdateLog> {
  const updates: streaming.TradeUpdate[] = [];
  const waiters = new Set<() => void>();
  stream.onTradeUpdate((update) => {
    updates.push(update);
    for (const wake of waiters) wake();
  });
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no `listening` acknowledgement")), timeoutMs);
    stream.on(streaming.EVENT.SUBSCRIPTION, (streamsListened: string[]) => {
      if (!streamsListened.includes("trade_updates")) return;
      clearTimeout(timer);
      resolve();
    });
    stream.onError((message) => {
      clearTimeout(timer);
      reject(new Error(`trade stream error: ${message}`));
    });
  });
  stream.subscribeTradeUpdates();
  stream.connect();
  const auth = await stream.waitForAuthenticationResult(timeoutMs);
  if (!auth.authenticated) throw new Error(`trade stream authentication: ${auth.status} ${auth.message}`);
  await listening;
  return {
    updates,
    first(match, wait = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = updates.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching trade update in ${wait} ms; received ${JSON.stringify(updates)}`));
        }, wait);
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Calls `read` every `intervalMs` until `done` holds for its answer and returns that answer; throws after
 * `timeoutMs` with the last answer, naming `what`.
 */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`${what}: not reached in ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls an order through the client until it is in one of `statuses`. */
export function orderReaches(apis: TradingApis, orderId: string, statuses: string[], timeoutMs?: number) {
  return pollUntil(
    `order ${orderId} ${statuses.join("|")}`,
    () => apis.orders.getOrderByOrderID({ orderId }),
    (order) => statuses.includes(order.status as string),
    timeoutMs,
  );
}
