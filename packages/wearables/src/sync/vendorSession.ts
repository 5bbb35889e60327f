/**
 * A connection's authenticated session with its vendor: the tokens opened from their sealed form, refreshed
 * ahead of expiry (or on a 401) and sealed again into the connection, every request on the vendor's shared
 * rate budget. A refresh the vendor refuses (400/401) is a `VendorAuthError`: the caller marks the connection
 * revoked (the anchor's `connection.revoked`, reason `refresh_failed`).
 */
import { createRateBudget, type RateBudget, type RateCounter, type SecretBox } from "@platform/kernel";
import { refreshTokens, type VendorCredentials } from "../providers/oauthClient.ts";
import type { VendorDirectory } from "../providers/registry.ts";
import {
  type VendorAdapter,
  VendorAuthError,
  type VendorClient,
  VendorHttpError,
  type VendorUrls,
} from "../providers/types.ts";
import { createVendorClient } from "../providers/vendorClient.ts";
import type { ConnectionForSync, ConnectionsStore } from "../store/connectionsRepository.ts";

/** Refresh this long before the vendor's stated expiry, so a page is not sent with a dying token. */
const REFRESH_MARGIN_MS = 60_000;

/** The associated data a connection's tokens are sealed with: a sealed token moved to another row won't open. */
export const tokenAssociatedData = (c: { user_id: string; provider: string }, which: "access" | "refresh") =>
  `wearables.user_connections:${c.user_id}:${c.provider}:${which}`;

export interface VendorSession {
  adapter: VendorAdapter;
  urls: VendorUrls;
  client: VendorClient;
}

export interface VendorSessions {
  open(connection: ConnectionForSync, signal?: AbortSignal): Promise<VendorSession>;
  /**
   * The vendor's budget (its application windows, one per process, counted in the shared rate counter), with
   * the per-user windows of `connectionId` when given.
   */
  budgetOf(adapter: VendorAdapter, connectionId?: string): RateBudget;
}

export function createVendorSessions(p: {
  directory: VendorDirectory;
  secrets: SecretBox;
  store: ConnectionsStore;
  counter: RateCounter;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}): VendorSessions {
  const budgets = new Map<string, RateBudget>();
  const applicationBudget = (adapter: VendorAdapter) => {
    let b = budgets.get(adapter.id);
    if (!b) {
      b = createRateBudget({
        counter: p.counter,
        name: `wearables.vendor:${adapter.id}`,
        windows: adapter.rateBudgets.filter((w) => (w.per ?? "application") === "application"),
      });
      budgets.set(adapter.id, b);
    }
    return b;
  };
  const budgetOf = (adapter: VendorAdapter, connectionId?: string): RateBudget => {
    const app = applicationBudget(adapter);
    const userWindows = adapter.rateBudgets.filter((w) => w.per === "user");
    if (!connectionId || userWindows.length === 0) return app;
    // Counted per connection in the shared counter, so every instance sees the user's requests.
    const user = createRateBudget({
      counter: p.counter,
      name: `wearables.vendor:${adapter.id}:${connectionId}`,
      windows: userWindows,
    });
    return {
      async take(signal) {
        await user.take(signal);
        await app.take(signal);
      },
      pauseUntil(untilMs) {
        app.pauseUntil(untilMs);
        user.pauseUntil(untilMs);
      },
    };
  };
  return {
    budgetOf,
    async open(connection, signal) {
      const found = p.directory.adapter(connection.provider);
      const configured = p.directory.credentials(connection.provider);
      if (!found || !configured) throw new Error(`provider ${connection.provider} is not configured`);
      const adapter: VendorAdapter = found;
      const credentials: VendorCredentials = configured;
      if (connection.status !== "active" || !connection.access_token_sealed)
        throw new VendorAuthError(`the ${connection.provider} connection is ${connection.status}`);
      const urls = p.directory.urls(adapter);
      let accessToken = p.secrets.open(connection.access_token_sealed, tokenAssociatedData(connection, "access"));
      let refreshToken = connection.refresh_token_sealed
        ? p.secrets.open(connection.refresh_token_sealed, tokenAssociatedData(connection, "refresh"))
        : undefined;
      let expiresAt = connection.token_expires_at?.getTime();

      async function refresh(): Promise<string> {
        if (!refreshToken)
          throw new VendorAuthError(`Token expired and no refresh token available for ${connection.provider}`);
        const next = await refreshTokens({ adapter, urls, credentials, refreshToken, fetch: p.fetch }).catch(
          (error: unknown) => {
            throw error instanceof VendorHttpError && (error.status === 400 || error.status === 401)
              ? new VendorAuthError(`${connection.provider} refused to refresh the tokens: ${error.body.slice(0, 200)}`)
              : error;
          },
        );
        accessToken = next.accessToken;
        refreshToken = next.refreshToken ?? refreshToken;
        expiresAt = next.expiresAt;
        await p.store.updateTokens(connection.id, {
          accessTokenSealed: p.secrets.seal(accessToken, tokenAssociatedData(connection, "access")),
          refreshTokenSealed: next.refreshToken
            ? p.secrets.seal(next.refreshToken, tokenAssociatedData(connection, "refresh"))
            : null,
          expiresAt: expiresAt === undefined ? null : new Date(expiresAt),
        });
        return accessToken;
      }

      if (expiresAt !== undefined && expiresAt - REFRESH_MARGIN_MS <= Date.now() && refreshToken) await refresh();
      const client = createVendorClient({
        budget: budgetOf(adapter, connection.id),
        headers: p.directory.apiHeaders(adapter),
        isAuthFailure: adapter.isAuthFailure?.bind(adapter),
        accessToken: () => accessToken,
        refresh,
        signal,
        fetch: p.fetch,
        sleep: p.sleep,
      });
      return { adapter, urls, client };
    },
  };
}
