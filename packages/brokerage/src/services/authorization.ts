/**
 * The rules of the authorization endpoint and its consent (RFC 6749 §4.1.1–4.1.2): which requests are
 * answered at all, which accounts the consent page offers for a request, and what a consent may choose. The
 * pages' routes call one function each; everything a form sends back is checked again here (hidden fields
 * are the browser's to change).
 */
import type { AccountEnv } from "../domain/accountNumbers.ts";
import {
  AuthorizationRedirectError,
  type AuthorizationRequest,
  AuthorizationTargetError,
  readAuthorizationParameters,
  readTarget,
  stateToEcho,
} from "../domain/authorizationRequest.ts";
import { OAuthError } from "../domain/oauthErrors.ts";
import { isRegisteredRedirectUri } from "../domain/redirectUris.ts";
import type { AccountRow, AccountsRepository } from "../store/accountsRepository.ts";
import type { ClientRow } from "../store/clientsRepository.ts";
import type { CodesService } from "./codes.ts";

/** A request that may be answered: its client is active and its redirect URI registered. */
export interface CheckedAuthorization {
  request: AuthorizationRequest;
  client: Pick<ClientRow, "client_id" | "name">;
}

/** The accounts the consent page offers: the live one when `env` allows it, the paper ones when it allows them. */
export interface AccountOffer {
  live: AccountRow | undefined;
  paper: AccountRow[];
  /** Whether the request asks for an account of that env (`env` omitted: both). */
  wantsLive: boolean;
  wantsPaper: boolean;
}

/** What the user chose on the consent page (account ids from the form). */
export interface ConsentChoice {
  liveAccountId?: string | undefined;
  paperAccountId?: string | undefined;
}

/** A consent form chose accounts the request or the user does not allow (a changed or stale form). */
export class ConsentChoiceError extends Error {
  override name = "ConsentChoiceError" as const;
}
export type ConsentChoiceErrorType = ConsentChoiceError & { name: "ConsentChoiceError" };

const wants = (env: AccountEnv | undefined) => ({ wantsLive: env !== "paper", wantsPaper: env !== "live" });

export function createAuthorizationService({
  clients,
  accounts,
  codes,
}: {
  clients: { get(clientId: string): Promise<ClientRow | undefined> };
  accounts: Pick<AccountsRepository, "listForUser">;
  codes: Pick<CodesService, "issue">;
}) {
  async function offer(userId: string, env: AccountEnv | undefined): Promise<AccountOffer> {
    const { wantsLive, wantsPaper } = wants(env);
    const owned = await accounts.listForUser(userId);
    const active = owned.filter((a) => a.status === "ACTIVE");
    return {
      live: wantsLive ? active.find((a) => a.env === "live") : undefined,
      paper: wantsPaper ? active.filter((a) => a.env === "paper") : [],
      wantsLive,
      wantsPaper,
    };
  }

  return {
    /**
     * Checks an authorization request from its raw parameters (query or form).
     * @throws {AuthorizationTargetError} unknown or revoked client, missing or unregistered redirect URI, or
     * either repeated: to be shown as a page, never redirected.
     * @throws {AuthorizationRedirectError} any other error, to be sent to the (registered) redirect URI.
     */
    async check(parameters: URLSearchParams): Promise<CheckedAuthorization> {
      const target = readTarget(parameters);
      const client = await clients.get(target.clientId);
      if (!client || client.revoked_at) throw new AuthorizationTargetError("client_id", "unknown client_id");
      if (!isRegisteredRedirectUri(client.redirect_uris, target.redirectUri)) {
        throw new AuthorizationTargetError("redirect_uri", "redirect_uri is not registered for this client");
      }
      try {
        return {
          request: readAuthorizationParameters(parameters, target),
          client: { client_id: client.client_id, name: client.name },
        };
      } catch (error) {
        if (error instanceof OAuthError) {
          throw new AuthorizationRedirectError(target.redirectUri, stateToEcho(parameters), error);
        }
        throw error;
      }
    },

    /** The accounts of `userId` the consent page offers for `request`. */
    offer: (userId: string, request: AuthorizationRequest): Promise<AccountOffer> => offer(userId, request.env),

    /**
     * The user allowed `request` with these accounts: issues the authorization code (returned in clear).
     * @throws {ConsentChoiceError} when an account is missing, not offered, or not the user's.
     */
    async approve(userId: string, request: AuthorizationRequest, choice: ConsentChoice): Promise<string> {
      const offered = await offer(userId, request.env);
      const live = offered.wantsLive ? offered.live : undefined;
      if (offered.wantsLive && (!live || choice.liveAccountId !== live.id)) {
        throw new ConsentChoiceError("the live account chosen is not the user's live account");
      }
      if (!offered.wantsLive && choice.liveAccountId !== undefined) {
        throw new ConsentChoiceError("this request is for a paper account only");
      }
      const paper = offered.paper.find((a) => a.id === choice.paperAccountId);
      if (offered.wantsPaper && !paper) {
        throw new ConsentChoiceError("the paper account chosen is not one of the user's paper accounts");
      }
      if (!offered.wantsPaper && choice.paperAccountId !== undefined) {
        throw new ConsentChoiceError("this request is for the live account only");
      }
      return codes.issue({
        clientId: request.clientId,
        userId,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        liveAccountId: live?.id,
        paperAccountId: paper?.id,
        codeChallenge: request.codeChallenge,
      });
    },
  };
}

export type AuthorizationService = ReturnType<typeof createAuthorizationService>;
