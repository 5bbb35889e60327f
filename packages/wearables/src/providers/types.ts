/**
 * What a cloud vendor adapter is: its OAuth 2.0 dialect, its data API, and how its answers map into the health
 * data model. One file per vendor under `adapters/`; everything vendor-independent (authorize URLs, code
 * exchange, refresh, the shared rate budget, 429 and 401 handling, the sync job's pages and checkpoints) lives
 * outside the adapters, so an adapter is only what its vendor's documentation says.
 *
 * URLs: every vendor URL is an absolute URL of the vendor's cloud (`defaults`). A deployment talks to the real
 * clouds; tests (and the sandbox) replace a vendor's origins with a local stand-in's through
 * `WEARABLES_VENDOR_ORIGINS` (`strava=http://127.0.0.1:9001`): the path of each URL stays the vendor's.
 */
import type { SampleInput, SleepInput, WorkoutInput } from "../store/healthDataWriter.ts";

/** What a vendor calls each kind of data a sync pulls. */
export type SyncKind = "workouts" | "sleep" | "daily" | "samples";

/** The vendor's OAuth 2.0 authorization code flow, as its documentation describes it. */
export interface VendorOAuth {
  /** Browser consent page. */
  authorizeUrl: string;
  /** Code exchange and refresh (form POST). */
  tokenUrl: string;
  /** Where a token is revoked on disconnect, when the vendor has such an endpoint. */
  revokeUrl?: string;
  /** Sends `code_challenge` (S256) and `code_verifier`. */
  pkce: boolean;
  /** Client credentials in `Authorization: Basic` or in the form body. */
  clientAuth: "basic" | "body";
  /** The default scope string exactly as the vendor expects it (space- or comma-separated); "" sends none. */
  scope: string;
  /**
   * Token endpoint dialect: `standard` is RFC 6749 JSON; `withings` posts `action=requesttoken` and answers
   * `{status, body}` where `status != 0` is an error even on HTTP 200.
   */
  dialect?: "standard" | "withings";
  /** Extra query parameters of the authorize URL (e.g. Google's `access_type=offline&prompt=consent`). */
  authorizeParams?: Record<string, string>;
  /** Extra form fields of a refresh request (WHOOP's `scope=offline`). */
  refreshParams?: Record<string, string>;
  /**
   * How `revokeUrl` is called: a form POST with `token` (RFC 7009, default), a GET with `?access_token=` (Oura),
   * or a DELETE with the bearer token (WHOOP's `DELETE /v2/user/access`).
   */
  revokeMethod?: "post-form" | "get-query" | "delete-bearer";
}

/** The token set a code exchange or refresh yields, normalized. */
export interface VendorTokens {
  accessToken: string;
  /** Absent when the vendor did not rotate it (keep the old one). */
  refreshToken?: string;
  /** Epoch ms; undefined when the vendor did not say. */
  expiresAt?: number;
  scope?: string;
  /** The vendor's user id when the token answer carries it (Strava `athlete.id`, Withings `userid`, Polar `x_user_id`). */
  providerUserId?: string;
  providerUsername?: string;
}

/**
 * An authenticated HTTP client for one connection, given to the adapter's data calls. It adds the bearer token,
 * waits for the vendor's shared rate budget, retries a 429 after `Retry-After`, refreshes an expired token once
 * on 401, and throws `VendorHttpError` for any other non-2xx.
 */
export interface VendorClient {
  /** GET `url` (absolute, from `endpoints.api`) with `query`; answers the parsed JSON body. */
  getJson<T = unknown>(url: string, query?: Record<string, string | number | boolean | undefined>): Promise<T>;
  /** POST a form (Withings' data API is form POSTs); answers the parsed JSON body. */
  postForm<T = unknown>(url: string, form: Record<string, string | number>): Promise<T>;
}

/** Who recorded the rows of a page (a data source of the user: the vendor, a device, an app). */
export interface PageSource {
  deviceModel?: string | null;
  source?: string | null;
  deviceType?: string | null;
}

/** Rows of one vendor page mapped into the data model, ready for the shared writer. */
export interface MappedRecords {
  workouts: (WorkoutInput & PageSource)[];
  sleeps: (SleepInput & PageSource)[];
  samples: (SampleInput & PageSource)[];
}

/** One page of a kind, fetched and mapped. */
export interface VendorPage {
  records: MappedRecords;
  /** How many vendor records the page held (the sync run's `items_processed`). */
  fetched: number;
  /** Opaque to the sync job: where the next page starts, or null when the window is done. */
  nextCursor: string | null;
}

/** The time window a sync covers, epoch ms, end exclusive. */
export interface SyncWindow {
  start: number;
  end: number;
}

export interface FetchPageParameters {
  client: VendorClient;
  /** The vendor URLs in effect (defaults with the configured origins). */
  urls: VendorUrls;
  kind: SyncKind;
  window: SyncWindow;
  /** The previous page's `nextCursor`, null for the first page of the window. */
  cursor: string | null;
  /** The connection's vendor user id, for vendors whose paths carry it (Polar, Fitbit `-` aside). */
  providerUserId: string | null;
  /**
   * The vendor knobs the sync was asked for (`POST …/sync`), only those the adapter declares in
   * `queryKnobs.sync`; absent (or a knob unset) means the adapter's own choice.
   */
  query?: VendorQuery;
}

/**
 * The anchor's vendor-specific query parameters of `POST …/sync` and `GET …/workouts`, each a knob of one
 * vendor's API: `limit`/`offset`/`filter_by_modification_time` Suunto's workout list paging and filter (other
 * vendors with a page size or offset take them too), `samples`/`zones`/`route` Polar AccessLink's exercise
 * options, `summary_start_time`/`summary_end_time` Garmin's summary upload window.
 */
export type VendorKnob =
  | "limit"
  | "offset"
  | "filter_by_modification_time"
  | "samples"
  | "zones"
  | "route"
  | "summary_window";

/** The endpoint a knob is given to: the sync run, or the vendor's workout list passed through. */
export type VendorQueryTarget = "sync" | "workouts";

/** Knobs as the adapter sees them (set only when the adapter declares the knob for the target). */
export interface VendorQuery {
  /** Records per vendor request (the vendor's page size, clamped to its maximum). */
  limit?: number;
  /** Where the first page starts (records to skip), for offset-paged vendors. */
  offset?: number;
  /** `since` (or the window's start) filters by modification (upload) time instead of start time. */
  byModificationTime?: boolean;
  /** Polar's exercise detail: samples, heart rate zones, route. */
  detail?: { samples: boolean; zones: boolean; route: boolean };
  /** Garmin's summary upload window, epoch seconds, end exclusive. */
  summaryWindow?: { start: number; end: number };
}

/** `GET …/workouts`: `since` (Unix seconds, 0 = the adapter's default reach) and the knobs, defaults applied. */
export interface RawWorkoutsQuery {
  since: number;
  limit: number;
  offset: number;
  byModificationTime: boolean;
  detail: { samples: boolean; zones: boolean; route: boolean };
  /** Set only when asked for (Garmin). */
  summaryWindow?: { start: number; end: number };
}

/** A vendor's URLs: OAuth plus the data API's base. */
export interface VendorUrls {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl?: string;
  /** Base of the data API, no trailing slash (e.g. `https://www.strava.com/api/v3`). */
  apiBase: string;
}

/**
 * A vendor's requests per window, shared by every instance (kernel rate counter): the sync waits instead of
 * bursting past it. E.g. Strava: 100 per 15 minutes and 1,000 per day, per application; Fitbit: 150 per hour
 * per user.
 */
export interface RateBudget {
  requests: number;
  windowSec: number;
  /** Whose requests the vendor counts: the application's (default) or each user's (each connection's). */
  per?: "application" | "user";
}

export interface VendorAdapter {
  /** The anchor's provider name (`strava`, `google_health`, …) or `sandbox`. */
  id: string;
  /** Display name (`Strava`). */
  name: string;
  oauth: VendorOAuth;
  /** The data API's base URL at the vendor. */
  apiBase: string;
  /** The kinds this vendor's API serves, in the order a sync pulls them. */
  kinds: readonly SyncKind[];
  /** Budgets the vendor documents; every one is enforced. */
  rateBudgets: readonly RateBudget[];
  /** The anchor's capability flags for `/connections` and `/oauth/providers`. */
  liveSyncMode: "pull" | "webhook";
  /** The farthest back a historical sync may reach (the anchor's `max_historical_days`), null when unlimited. */
  maxHistoricalDays: number | null;
  /** Granularity of the 24/7 data (the anchor's `data_granularity`). */
  dataGranularity: "daily" | "hourly" | "raw" | null;
  /**
   * Parses the token endpoint's JSON answer (after the dialect's envelope is removed), for vendors that put the
   * user id or odd fields there. Default: RFC 6749 fields.
   */
  parseTokens?(body: Record<string, unknown>, now: number): VendorTokens;
  /** Reads the vendor's user id (and name) when the token answer lacks it (e.g. a profile endpoint). */
  fetchIdentity?(
    client: VendorClient,
    urls: VendorUrls,
  ): Promise<{ providerUserId: string; providerUsername?: string }>;
  /** One page of `kind` within `window`. */
  fetchPage(p: FetchPageParameters): Promise<VendorPage>;
  /** Inbound push notifications, for vendors that push. */
  push?: VendorPush;
  /**
   * The header of an application key the vendor wants on every data request besides the bearer token
   * (Suunto's Azure APIM `Ocp-Apim-Subscription-Key`); its value comes from `WEARABLES_VENDOR_API_KEYS`.
   */
  apiKeyHeader?: string;
  /**
   * True when a 2xx answer's body says the token was refused (Withings answers HTTP 200 with `{status: 401}`):
   * the client refreshes and retries as on an HTTP 401.
   */
  isAuthFailure?(body: unknown): boolean;
  /**
   * The vendor's raw workout list, passed through as `GET /providers/{p}/users/{u}/workouts` (the anchor's
   * vendor JSON passthrough).
   */
  listRawWorkouts?(client: VendorClient, urls: VendorUrls, q: RawWorkoutsQuery): Promise<unknown>;
  /**
   * The vendor knobs this adapter honours, per endpoint: a knob given a non-default value for an adapter that
   * does not list it is refused (400) rather than ignored.
   */
  queryKnobs?: { sync?: readonly VendorKnob[]; workouts?: readonly VendorKnob[] };
}

/** What one push notification of a vendor says about one of its users. */
export interface PushNotice {
  /** The vendor's user id the notice is about (a connection's `provider_user_id`). */
  providerUserId: string;
  /** Data the notification carried inline (Garmin's push mode), already mapped. */
  records?: MappedRecords;
  /** What to pull because of it (a ping: Strava, Oura, Whoop, Polar, Withings). */
  pull?: { kinds: SyncKind[]; window: SyncWindow };
  /** The user withdrew consent at the vendor (Garmin deregistration, Strava `authorized: false`). */
  deauthorized?: boolean;
  /** Records the vendor deleted (by the vendor's id, the `externalId` they were written with). */
  deleted?: { kind: "workouts" | "sleep"; externalId: string }[];
}

/** Secrets a push is checked with: the app's client secret, and a push secret where the vendor has its own. */
export interface PushSecrets {
  clientSecret: string;
  pushSecret?: string;
}

export interface PushRequest {
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The body exactly as received (signatures are over these bytes). */
  rawBody: Buffer;
  contentType: string | undefined;
}

/** Inbound notifications (`POST /providers/{provider}/webhooks`), for vendors that push. */
export interface VendorPush {
  /** True when the notification is the vendor's (signature, timestamp tolerance, shared token). */
  verify(req: PushRequest, secrets: PushSecrets, now: number): boolean;
  /** The notices a verified notification holds; throws on a malformed body (answered 400). */
  parse(req: PushRequest, now?: number): PushNotice[];
  /**
   * The answer to a subscription check (`GET` on the same path: Strava's `hub.challenge`, Oura's verification),
   * or undefined when the request is not one.
   */
  challenge?(
    query: Record<string, string | undefined>,
    secrets: PushSecrets,
  ): { status: number; body: unknown } | undefined;
}

/** A vendor answered with a non-2xx status (after retries). */
export class VendorHttpError extends Error {
  override name = "VendorHttpError";
  constructor(
    readonly status: number,
    readonly body: string,
    readonly url: string,
  ) {
    super(`vendor answered ${status} at ${url}: ${body.slice(0, 300)}`);
  }
}
export type VendorHttpErrorType = VendorHttpError;

/**
 * Why a connection's tokens are of no more use (the connection's `status_reason` once revoked):
 * - `refresh_failed`: the vendor refused the refresh (the anchor's `connection.revoked` reason);
 * - `refresh_interrupted`: refused after an earlier refresh was interrupted between the vendor's answer and its
 *   storing (its refresh token was rotated away): the user must authorize again;
 * - `tokens_refused`: the vendor refused a freshly refreshed access token;
 * - `connection_inactive`: the connection was revoked already (by another holder, a disconnect, a push).
 */
export type VendorAuthReason = "refresh_failed" | "refresh_interrupted" | "tokens_refused" | "connection_inactive";

/** The vendor refused the connection's tokens and refresh failed: the connection is revoked. */
export class VendorAuthError extends Error {
  override name = "VendorAuthError";
  constructor(
    message: string,
    readonly reason: VendorAuthReason = "refresh_failed",
  ) {
    super(message);
  }
}
export type VendorAuthErrorType = VendorAuthError;
