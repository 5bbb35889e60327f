/**
 * A connection's authenticated session with its vendor: the tokens opened from their sealed form, refreshed
 * ahead of expiry (or on a 401) and sealed again into the connection, every request on the vendor's shared
 * rate budget. A refresh the vendor refuses (400/401) is a `VendorAuthError`: the caller marks the connection
 * revoked (the anchor's `connection.revoked`, reason `refresh_failed`).
 *
 * Refresh tokens that rotate are single-use, so a refresh is safe across processes and kills:
 * - it runs under the connection's refresh lease (refreshLock.ts), shared by every instance and job;
 * - the holder reads the stored tokens again first: if another holder refreshed since this session read them
 *   (another sealed access token, or a later expiry), it adopts those instead of spending the refresh token;
 * - it sets the connection's `refresh_started_at` before the request and stores the answer (clearing it) in one
 *   statement right after: the window in which a kill loses the new tokens is that one statement;
 * - a holder that finds the marker set knows the last refresh was interrupted: if the vendor then refuses the
 *   refresh token, the error says so (reason `refresh_interrupted`: authorize again) instead of `refresh_failed`.
 */
import { createRateBudget, type Leases, type RateBudget, type RateCounter, type SecretBox } from "@platform/kernel";
import { refreshTokens, type VendorCredentials } from "../providers/oauthClient.ts";
import type { VendorDirectory } from "../providers/registry.ts";
import {
  type VendorAdapter,
  VendorAuthError,
  type VendorClient,
  VendorHttpError,
  type VendorTokens,
  type VendorUrls,
} from "../providers/types.ts";
import { createVendorClient } from "../providers/vendorClient.ts";
import type { ConnectionForSync, ConnectionsStore, StoredTokens } from "../store/connectionsRepository.ts";
import { createRefreshLock } from "./refreshLock.ts";

/** Refresh this long before the vendor's stated expiry, so a page is not sent with a dying token. */
const REFRESH_MARGIN_MS = 60_000;

/** The associated data a connection's tokens are sealed with: a sealed token moved to another row won't open. */
export const tokenAssociatedData = (c: { user_id: string; provider: string }, which: "access" | "refresh") =>
  `wearables.user_connections:${c.user_id}:${c.provider}:${which}`;

/** A session's tokens in the clear, and the sealed access token they were read or stored as. */
interface SessionTokens {
  access: string;
  refresh: string | undefined;
  expiresAt: number | undefined;
  accessSealed: string;
}

type Sealed = { accessTokenSealed: string; refreshTokenSealed: string | null; expiresAt: Date | null };

const sealTokens = (secrets: SecretBox, c: ConnectionForSync, next: VendorTokens): Sealed => ({
  accessTokenSealed: secrets.seal(next.accessToken, tokenAssociatedData(c, "access")),
  refreshTokenSealed: next.refreshToken ? secrets.seal(next.refreshToken, tokenAssociatedData(c, "refresh")) : null,
  expiresAt: next.expiresAt === undefined ? null : new Date(next.expiresAt),
});

function openTokens(
  secrets: SecretBox,
  c: ConnectionForSync,
  stored: Pick<StoredTokens, "access_token_sealed" | "refresh_token_sealed" | "token_expires_at"> = c,
): SessionTokens {
  const accessSealed = stored.access_token_sealed as string;
  return {
    access: secrets.open(accessSealed, tokenAssociatedData(c, "access")),
    refresh: stored.refresh_token_sealed
      ? secrets.open(stored.refresh_token_sealed, tokenAssociatedData(c, "refresh"))
      : undefined,
    expiresAt: stored.token_expires_at?.getTime(),
    accessSealed,
  };
}

/** Another holder stored tokens since this session read its own (each sealing differs, so any new store shows). */
const refreshedElsewhere = (t: SessionTokens, stored: StoredTokens) =>
  stored.access_token_sealed !== t.accessSealed ||
  (stored.token_expires_at?.getTime() ?? Number.NEGATIVE_INFINITY) > (t.expiresAt ?? Number.NEGATIVE_INFINITY);

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
  /** The kernel's leases on the same database: the per-connection refresh lock shared by every instance. */
  leases: Leases;
  counter: RateCounter;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}): VendorSessions {
  const lock = createRefreshLock({ leases: p.leases });
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

  /** The refresh itself, the lease held and the stored tokens still this session's. */
  async function refreshAtVendor(r: {
    adapter: VendorAdapter;
    urls: VendorUrls;
    credentials: VendorCredentials;
    connection: ConnectionForSync;
    tokens: SessionTokens;
    interrupted: boolean;
  }): Promise<string> {
    const { adapter, urls, credentials, connection, tokens } = r;
    if (!tokens.refresh)
      throw new VendorAuthError(`Token expired and no refresh token available for ${connection.provider}`);
    if (!(await p.store.markRefreshStarted(connection.id)))
      throw new VendorAuthError(`the ${connection.provider} connection is not active`, "connection_inactive");
    let next: VendorTokens;
    try {
      next = await refreshTokens({ adapter, urls, credentials, refreshToken: tokens.refresh, fetch: p.fetch });
    } catch (error) {
      throw await refreshFailure(error, connection, r.interrupted);
    }
    // The vendor voided the old refresh token with this answer: it is stored before anything else happens.
    const sealed = sealTokens(p.secrets, connection, next);
    await p.store.updateTokens(connection.id, sealed);
    tokens.access = next.accessToken;
    tokens.refresh = next.refreshToken ?? tokens.refresh;
    tokens.expiresAt = next.expiresAt;
    tokens.accessSealed = sealed.accessTokenSealed;
    return tokens.access;
  }

  /**
   * What a failed refresh request means. A 4xx answer issued nothing: this refresh's marker goes (an earlier,
   * interrupted one's stays until the user authorizes again). A network error, timeout or 5xx may have been
   * answered at the vendor: the marker stays, so a later refusal is told as an interrupted refresh.
   */
  async function refreshFailure(error: unknown, connection: ConnectionForSync, interrupted: boolean) {
    if (!(error instanceof VendorHttpError) || error.status >= 500) return error;
    if (!interrupted) await p.store.clearRefreshMarker(connection.id).catch(() => undefined);
    if (error.status !== 400 && error.status !== 401) return error;
    return interrupted
      ? new VendorAuthError(
          `${connection.provider} refused the refresh token after an earlier refresh was interrupted before its ` +
            `answer was stored (the vendor had rotated the token): the user must authorize again`,
          "refresh_interrupted",
        )
      : new VendorAuthError(`${connection.provider} refused to refresh the tokens: ${error.body.slice(0, 200)}`);
  }

  return {
    budgetOf,
    async open(connection, signal) {
      const found = p.directory.adapter(connection.provider);
      const configured = p.directory.credentials(connection.provider);
      if (!found || !configured) throw new Error(`provider ${connection.provider} is not configured`);
      const adapter: VendorAdapter = found;
      const credentials: VendorCredentials = configured;
      if (connection.status !== "active" || !connection.access_token_sealed)
        throw new VendorAuthError(
          `the ${connection.provider} connection is ${connection.status}`,
          "connection_inactive",
        );
      const urls = p.directory.urls(adapter);
      const tokens = openTokens(p.secrets, connection);
      const isExpiring = () =>
        tokens.expiresAt !== undefined && tokens.expiresAt - REFRESH_MARGIN_MS <= Date.now() && !!tokens.refresh;

      /** Refreshes under the connection's lock, unless another holder did since this session's tokens were read. */
      const refresh = (trigger: "expiring" | "refused") =>
        lock.run(connection.id, signal, async () => {
          const stored = await p.store.readTokens(connection.id);
          if (stored?.status !== "active" || !stored.access_token_sealed)
            throw new VendorAuthError(
              `the ${connection.provider} connection is ${stored?.status ?? "gone"}`,
              "connection_inactive",
            );
          if (refreshedElsewhere(tokens, stored)) {
            Object.assign(tokens, openTokens(p.secrets, connection, stored));
            // Adopted tokens are fresh, unless the other holder's were already near expiry.
            if (trigger === "refused" || !isExpiring()) return tokens.access;
          }
          const interrupted = stored.refresh_started_at !== null;
          return refreshAtVendor({ adapter, urls, credentials, connection, tokens, interrupted });
        });

      if (isExpiring()) await refresh("expiring");
      const client = createVendorClient({
        budget: budgetOf(adapter, connection.id),
        headers: p.directory.apiHeaders(adapter),
        isAuthFailure: adapter.isAuthFailure?.bind(adapter),
        accessToken: () => tokens.access,
        refresh: () => refresh("refused"),
        signal,
        fetch: p.fetch,
        sleep: p.sleep,
      });
      return { adapter, urls, client };
    },
  };
}
