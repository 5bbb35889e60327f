/**
 * Connects an adapter to its vendor stand-in as the platform does (authorize URL → the stand-in's consent form,
 * allowed → code → exchange), and gives the adapter's data calls a real `VendorClient` (budget, bearer, 429
 * and 401 handling, refresh with rotation). For adapter tests: `fetchAll` pulls every page of a kind.
 *
 * @example
 * const cloud = await startStravaStandIn({ clients: { c: "s" } });
 * const harness = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials: { clientId: "c", clientSecret: "s" } });
 * const pages = await harness.fetchAll("workouts", { start: Date.parse("2026-01-01"), end: Date.now() });
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryRateCounter, createRateBudget } from "@platform/kernel";
import {
  buildAuthorizeUrl,
  exchangeCode,
  newCodeVerifier,
  newState,
  refreshTokens,
  type VendorCredentials,
} from "../providers/oauthClient.ts";
import {
  type PushRequest,
  type RawWorkoutsQuery,
  type SyncKind,
  type SyncWindow,
  type VendorAdapter,
  VendorAuthError,
  type VendorClient,
  VendorHttpError,
  type VendorPage,
  type VendorQuery,
  type VendorTokens,
  type VendorUrls,
} from "../providers/types.ts";
import { createVendorClient } from "../providers/vendorClient.ts";
import { resolveVendorUrls } from "../providers/vendorUrls.ts";

export interface VendorHarness {
  urls: VendorUrls;
  tokens: VendorTokens;
  client: VendorClient;
  /** How many times the tokens were refreshed. */
  refreshes: number;
  /** Every page of `kind` in `window`, with the sync's vendor knobs `query` when given. */
  fetchAll(kind: SyncKind, window: SyncWindow, query?: VendorQuery): Promise<VendorPage[]>;
}

/** Submits a stand-in's consent form (Allow) for `authorizeUrl`; answers the redirect's query. */
export async function allowOnStandIn(authorizeUrl: string, login = "1001"): Promise<URLSearchParams> {
  const u = new URL(authorizeUrl);
  const page = await fetch(u);
  if (!page.ok) throw new Error(`consent page answered ${page.status}: ${await page.text()}`);
  const form = new URLSearchParams(u.searchParams);
  form.set("decision", "allow");
  form.set("login_hint", login);
  const res = await fetch(`${u.origin}${u.pathname}`, {
    method: "POST",
    body: form,
    redirect: "manual",
  });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return new URL(location).searchParams;
}

export async function connectToStandIn(p: {
  adapter: VendorAdapter;
  origin: string;
  credentials: VendorCredentials;
  login?: string;
  /** The vendor's application key (`VendorAdapter.apiKeyHeader`), when it wants one. */
  apiKey?: string;
}): Promise<VendorHarness> {
  const urls = resolveVendorUrls(p.adapter, { [p.adapter.id]: p.origin });
  const redirectUri = "http://127.0.0.1:1/api/v1/oauth/callback";
  const state = newState();
  const codeVerifier = p.adapter.oauth.pkce ? newCodeVerifier() : undefined;
  const back = await allowOnStandIn(
    buildAuthorizeUrl({ adapter: p.adapter, urls, credentials: p.credentials, redirectUri, state, codeVerifier }),
    p.login,
  );
  if (back.get("state") !== state) throw new Error("the stand-in did not return the state");
  const code = back.get("code");
  if (!code) throw new Error(`no code: ${back.toString()}`);
  const base = { adapter: p.adapter, urls, credentials: p.credentials };
  const harness: VendorHarness = {
    urls,
    tokens: await exchangeCode({ ...base, code, redirectUri, codeVerifier }),
    refreshes: 0,
    client: undefined as unknown as VendorClient,
    async fetchAll(kind, window, query) {
      const pages: VendorPage[] = [];
      let cursor: string | null = null;
      do {
        const page: VendorPage = await p.adapter.fetchPage({
          client: harness.client,
          urls,
          kind,
          window,
          cursor,
          providerUserId: harness.tokens.providerUserId ?? null,
          ...(query ? { query } : {}),
        });
        pages.push(page);
        cursor = page.nextCursor;
        if (pages.length > 1_000) throw new Error("more than 1,000 pages: the cursor does not advance");
      } while (cursor !== null);
      return pages;
    },
  };
  harness.client = createVendorClient({
    budget: createRateBudget({
      counter: createMemoryRateCounter(),
      name: `vendor:${p.adapter.id}`,
      windows: p.adapter.rateBudgets,
      sleep: async () => {},
    }),
    accessToken: () => harness.tokens.accessToken,
    headers: p.apiKey && p.adapter.apiKeyHeader ? { [p.adapter.apiKeyHeader]: p.apiKey } : {},
    isAuthFailure: p.adapter.isAuthFailure?.bind(p.adapter),
    async refresh() {
      const next = await refreshTokens({ ...base, refreshToken: harness.tokens.refreshToken ?? "" }).catch((e) => {
        throw e instanceof VendorHttpError && (e.status === 400 || e.status === 401)
          ? new VendorAuthError(e.message)
          : e;
      });
      // A field the refresh answer leaves out (Strava's athlete, a refresh token not rotated) keeps its value.
      const given = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined));
      harness.tokens = { ...harness.tokens, ...given };
      harness.refreshes += 1;
      return harness.tokens.accessToken;
    },
    // Tests do not wait out real Retry-After seconds.
    sleep: async () => {},
  });
  if (!harness.tokens.providerUserId && p.adapter.fetchIdentity) {
    harness.tokens.providerUserId = (await p.adapter.fetchIdentity(harness.client, urls)).providerUserId;
  }
  return harness;
}

/**
 * Receives the one request `send` makes to a local URL shaped as the platform's webhook route
 * (`/api/v1/providers/<provider>/webhooks`), and hands it over as the route would: a `PushRequest` with the
 * exact bytes, for an adapter's `push.verify` and `push.parse`.
 */
export async function receivePush(provider: string, send: (url: string) => Promise<unknown>): Promise<PushRequest> {
  let got: PushRequest | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got = {
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : v]),
        ),
        query: Object.fromEntries(new URL(req.url ?? "/", "http://x").searchParams),
        rawBody: Buffer.concat(chunks),
        contentType: req.headers["content-type"],
      };
      res.end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/${provider}/webhooks`);
  } finally {
    await new Promise((r) => server.close(r));
  }
  if (!got) throw new Error("nothing received");
  return got;
}

/** A workout list query with the anchor's defaults, for `listRawWorkouts` in adapter tests. */
export const rawWorkoutsQuery = (q: Partial<RawWorkoutsQuery> = {}): RawWorkoutsQuery => ({
  since: 0,
  limit: 50,
  offset: 0,
  byModificationTime: true,
  detail: { samples: false, zones: false, route: false },
  ...q,
});
