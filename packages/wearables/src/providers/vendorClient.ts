/**
 * The authenticated HTTP client an adapter's data calls go through (`VendorClient`): every request waits for
 * the vendor's shared rate budget, carries the connection's bearer token, and:
 * - 429 → waits `Retry-After` (seconds or an HTTP date; else 15 s × 2^attempt as the anchor does), pausing
 *   the whole budget in this process, and tries again, at most `maxRetries` times;
 * - 401 → refreshes the tokens once (`refresh()`, which persists them) and tries again; a second 401, or a
 *   refresh the vendor refuses, is a `VendorAuthError` (the sync marks the connection revoked);
 * - any other non-2xx → `VendorHttpError`.
 */
import { abortableSleep, type RateBudget } from "@platform/kernel";
import { VendorAuthError, type VendorClient, VendorHttpError } from "./types.ts";

export interface CreateVendorClientParameters {
  budget: RateBudget;
  /** The access token in effect. */
  accessToken: () => string;
  /** Refreshes and stores the tokens; answers the new access token. Throws VendorAuthError when refused. */
  refresh: () => Promise<string>;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Default 3 (the anchor's MAX_RETRIES on 429). */
  maxRetries?: number;
  /** Default 30 s per request. */
  timeoutMs?: number;
  /** Upper bound of one 429 wait; default 15 minutes. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Headers of every request besides the bearer token (an application key: `VendorAdapter.apiKeyHeader`). */
  headers?: Record<string, string>;
  /** A 2xx body that means "token refused" (`VendorAdapter.isAuthFailure`). */
  isAuthFailure?: (body: unknown) => boolean;
}

/** Milliseconds a `Retry-After` header asks for (delta seconds or an HTTP date), undefined when absent or bad. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function createVendorClient(p: CreateVendorClientParameters): VendorClient {
  const doFetch = p.fetch ?? fetch;
  const maxRetries = p.maxRetries ?? 3;
  const sleep = p.sleep ?? abortableSleep;
  const timeoutMs = p.timeoutMs ?? 30_000;

  async function request(url: string, init: { method: string; body?: string; contentType?: string }) {
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      await p.budget.take(p.signal);
      const res = await doFetch(url, {
        method: init.method,
        headers: {
          ...p.headers,
          authorization: `Bearer ${p.accessToken()}`,
          accept: "application/json",
          ...(init.contentType ? { "content-type": init.contentType } : {}),
        },
        body: init.body,
        signal: p.signal ? AbortSignal.any([p.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
      if (res.status === 429 && attempt < maxRetries) {
        await res.body?.cancel();
        const wait = Math.min(
          retryAfterMs(res.headers.get("retry-after")) ?? 15_000 * 2 ** attempt,
          p.maxRetryAfterMs ?? 900_000,
        );
        p.budget.pauseUntil(Date.now() + wait);
        await sleep(wait, p.signal);
        continue;
      }
      let text = "";
      let body: unknown = null;
      if (res.status !== 401) {
        text = await res.text();
        if (!res.ok) throw new VendorHttpError(res.status, text, url);
        try {
          body = text === "" ? null : (JSON.parse(text) as unknown);
        } catch {
          throw new VendorHttpError(502, `not JSON: ${text.slice(0, 200)}`, url);
        }
      } else await res.body?.cancel();
      if (res.status === 401 || p.isAuthFailure?.(body)) {
        if (refreshed) throw new VendorAuthError(`the vendor refused a fresh access token at ${url}`, "tokens_refused");
        refreshed = true;
        await p.refresh();
        attempt -= 1; // a refresh is not a retry of the budgeted kind
        continue;
      }
      return body;
    }
  }

  return {
    getJson: async <T>(url: string, query: Record<string, string | number | boolean | undefined> = {}) => {
      const u = new URL(url);
      for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
      return (await request(u.toString(), { method: "GET" })) as T;
    },
    postForm: async <T>(url: string, form: Record<string, string | number>) =>
      (await request(url, {
        method: "POST",
        body: new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])).toString(),
        contentType: "application/x-www-form-urlencoded",
      })) as T,
  };
}
