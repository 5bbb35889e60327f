/**
 * Connecting a user to a vendor (the anchor's `oauth.py` and `connections.py`): the authorize URL with a
 * single-use state (15 minutes, PKCE verifier sealed beside it), the callback that exchanges the code and
 * stores the connection with its tokens sealed, the new connection's historical sync, and disconnecting
 * (tokens revoked at the vendor where it has an endpoint, then forgotten; the data kept or deleted).
 */
import type { Database, RateBudget, SecretBox } from "@platform/kernel";
import { PROVIDER_NAMES } from "../domain/providers.ts";
import { buildAuthorizeUrl, exchangeCode, newCodeVerifier, newState, revokeToken } from "../providers/oauthClient.ts";
import type { VendorDirectory } from "../providers/registry.ts";
import { type VendorAdapter, VendorAuthError, VendorHttpError } from "../providers/types.ts";
import { createVendorClient } from "../providers/vendorClient.ts";
import type { ConnectionsStore } from "../store/connectionsRepository.ts";
import type { OAuthStatesRepository } from "../store/oauthStatesRepository.ts";
import type { UsersRepository } from "../store/usersRepository.ts";
import { tokenAssociatedData } from "../sync/vendorSession.ts";
import { connectionCreated, connectionRevoked } from "../webhooks/webhookEvents.ts";
import type { WebhookOutbox } from "../webhooks/webhookOutbox.ts";
import { type ProviderSyncService, SyncRequestError } from "./providerSync.ts";

/** The anchor's state lifetime (`oauth_state:{state}`, 900 s). */
export const STATE_TTL_SEC = 900;
const DAY_MS = 86_400_000;

/** Where the callback sends the browser: a status and a Location, or a JSON answer. */
export type CallbackOutcome = { redirect: string } | { statusCode: 400; detail: string };

export interface ProviderConnectionsParameters {
  db: Database;
  directory: VendorDirectory;
  secrets: SecretBox;
  states: OAuthStatesRepository;
  connections: ConnectionsStore;
  users: Pick<UsersRepository, "get">;
  sync: ProviderSyncService;
  /** Where `connection.created` and `connection.revoked` (a disconnect) go. */
  outbox: WebhookOutbox;
  /** `<public origin>/api/v1`: the callback is `<it>/oauth/<provider>/callback`. */
  apiBaseUrl: () => string;
  historicalDaysOnConnect: number;
  /** The vendor's shared rate budget (the identity request counts too). */
  budgetOf: (adapter: VendorAdapter) => RateBudget;
  fetch?: typeof fetch;
}

export function createProviderConnections(p: ProviderConnectionsParameters) {
  const callbackUrl = (provider: string) => `${p.apiBaseUrl()}/oauth/${provider}/callback`;

  function oauthVendor(provider: string) {
    const adapter = p.directory.adapter(provider);
    if (!adapter) {
      if ((PROVIDER_NAMES as readonly string[]).includes(provider))
        throw new SyncRequestError(400, `Provider '${provider}' does not support OAuth`);
      throw new SyncRequestError(404, `Provider '${provider}' not found`);
    }
    const credentials = p.directory.credentials(provider);
    if (!credentials)
      throw new SyncRequestError(400, `Provider '${provider}' is not enabled: its OAuth client is not configured`);
    return { adapter, credentials, urls: p.directory.urls(adapter) };
  }

  return {
    /** `GET /oauth/{provider}/authorize`. */
    async authorize(provider: string, userId: string, redirectUri: string | null) {
      const { adapter, credentials, urls } = oauthVendor(provider);
      if (!(await p.users.get(userId))) throw new SyncRequestError(404, "User not found");
      const state = newState();
      const codeVerifier = adapter.oauth.pkce ? newCodeVerifier() : undefined;
      await p.states.put({
        state,
        userId,
        provider,
        redirectUri,
        codeVerifierSealed: codeVerifier ? p.secrets.seal(codeVerifier, `wearables.oauth_states:${provider}`) : null,
        ttlSec: STATE_TTL_SEC,
      });
      const authorizationUrl = buildAuthorizeUrl({
        adapter,
        urls,
        credentials,
        redirectUri: callbackUrl(provider),
        state,
        codeVerifier,
      });
      return { authorization_url: authorizationUrl, state };
    },

    /** `GET /oauth/{provider}/callback`: the vendor sent the browser back. */
    async callback(
      provider: string,
      q: { code?: string | null; state?: string | null; error?: string | null; error_description?: string | null },
    ): Promise<CallbackOutcome> {
      const errorPage = (message: string) => ({
        redirect: `${p.apiBaseUrl()}/oauth/error?${new URLSearchParams({ message })}`,
      });
      if (q.error) return errorPage(`${q.error}: ${q.error_description ?? ""}`.trim());
      if (!q.code || !q.state) return errorPage("Missing OAuth parameters");
      const stored = await p.states.take(q.state);
      if (!stored) return { statusCode: 400, detail: "Invalid or expired state parameter" };
      if (stored.provider !== provider) return { statusCode: 400, detail: "Provider mismatch in state" };
      const { adapter, credentials, urls } = oauthVendor(provider);
      const codeVerifier = stored.code_verifier_sealed
        ? p.secrets.open(stored.code_verifier_sealed, `wearables.oauth_states:${provider}`)
        : undefined;
      let tokens: Awaited<ReturnType<typeof exchangeCode>>;
      try {
        tokens = await exchangeCode({
          adapter,
          urls,
          credentials,
          code: q.code,
          redirectUri: callbackUrl(provider),
          codeVerifier,
          fetch: p.fetch,
        });
      } catch (error) {
        const body = error instanceof VendorHttpError ? error.body : error instanceof Error ? error.message : "";
        return { statusCode: 400, detail: `Failed to exchange authorization code: ${body.slice(0, 500)}` };
      }
      let identity: { providerUserId?: string; providerUsername?: string } = {
        providerUserId: tokens.providerUserId,
        providerUsername: tokens.providerUsername,
      };
      if (!identity.providerUserId && adapter.fetchIdentity) {
        const client = createVendorClient({
          budget: p.budgetOf(adapter),
          headers: p.directory.apiHeaders(adapter),
          isAuthFailure: adapter.isAuthFailure?.bind(adapter),
          accessToken: () => tokens.accessToken,
          // Just issued: a 401 now is the vendor refusing it, not an expiry.
          refresh: async () => {
            throw new VendorAuthError(`${provider} refused the token it just issued`);
          },
          fetch: p.fetch,
        });
        identity = await adapter.fetchIdentity(client, urls);
      }
      const owner = { user_id: stored.user_id, provider };
      await p.db.transaction(async (tx) => {
        const { id } = await p.connections.upsert(tx, {
          userId: stored.user_id,
          provider,
          providerUserId: identity.providerUserId ?? null,
          providerUsername: identity.providerUsername ?? null,
          scope: tokens.scope ?? (adapter.oauth.scope || null),
          accessTokenSealed: p.secrets.seal(tokens.accessToken, tokenAssociatedData(owner, "access")),
          refreshTokenSealed: tokens.refreshToken
            ? p.secrets.seal(tokens.refreshToken, tokenAssociatedData(owner, "refresh"))
            : null,
          tokenExpiresAt: tokens.expiresAt ? new Date(tokens.expiresAt) : null,
        });
        // Also on a reconnect (the anchor's #1223): each authorization is a new `connected_at`.
        await p.outbox.emit(tx, [
          connectionCreated({ userId: stored.user_id, provider, connectionId: id, at: new Date() }),
        ]);
        const days = Math.min(p.historicalDaysOnConnect, adapter.maxHistoricalDays ?? p.historicalDaysOnConnect);
        if (days > 0) {
          const connection = await p.connections.get(id, tx);
          const end = Date.now();
          if (connection && !connection.synced_from)
            await p.sync.enqueueRun(tx, connection, {
              source: "backfill",
              scope: "historical",
              kinds: [...adapter.kinds],
              start: end - days * DAY_MS,
              end,
              message: `Historical sync of ${days} days queued on connect`,
            });
        }
      });
      const success = `${p.apiBaseUrl()}/oauth/success?${new URLSearchParams({ provider, user_id: stored.user_id })}`;
      return { redirect: stored.redirect_uri ?? success };
    },

    /**
     * `DELETE /users/{user_id}/connections/{provider}` (and `/data` with `deleteData`): revokes the tokens at
     * the vendor where it can, then removes the connection.
     */
    async disconnect(userId: string, provider: string, o: { deleteData: boolean }) {
      const connection = await p.connections.findForUser(userId, provider);
      if (!connection) throw new SyncRequestError(404, `No connection to ${provider} found for user ${userId}`);
      const adapter = p.directory.adapter(provider);
      const credentials = p.directory.credentials(provider);
      if (adapter && credentials && connection.access_token_sealed) {
        const token = p.secrets.open(connection.access_token_sealed, tokenAssociatedData(connection, "access"));
        // Best effort: the user's wish to disconnect does not depend on the vendor answering.
        await revokeToken({
          adapter,
          urls: p.directory.urls(adapter),
          credentials,
          token,
          fetch: p.fetch,
          timeoutMs: 10_000,
        }).catch(() => false);
      }
      await p.db.transaction(async (tx) => {
        if (o.deleteData) await p.connections.deleteProviderData(tx, userId, provider);
        await p.connections.remove(tx, connection.id);
        if (connection.status === "active")
          await p.outbox.emit(tx, [
            connectionRevoked({
              userId,
              provider,
              connectionId: connection.id,
              at: new Date(),
              reason: "disconnected",
            }),
          ]);
      });
    },
  };
}

export type ProviderConnections = ReturnType<typeof createProviderConnections>;
