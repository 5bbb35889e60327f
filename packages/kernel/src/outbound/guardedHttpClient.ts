/**
 * An HTTP client for URLs that users choose (webhook endpoints): it reaches only addresses its `AddressPolicy`
 * allows. The check runs on the addresses a name resolves to, inside the connection's own lookup, so the socket
 * connects to exactly the address that was checked (no second resolution to rebind). A name that resolves to
 * any refused address is refused whole. Redirects are not followed unless asked (`maxRedirects`), and each hop
 * is checked again. The response body is read up to a bound, the whole exchange has one deadline, and only
 * `http:` and `https:` are spoken.
 *
 * @example
 * const client = createGuardedHttpClient({ policy: createAddressPolicy() });
 * const res = await client.send({ url: "https://example.com/hook", method: "POST", body: "{}", timeoutMs: 30_000 });
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { AddressPolicy } from "./addressPolicy.ts";

export interface GuardedRequest {
  url: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The deadline of the whole exchange, connection to last body byte read (default 30 s). */
  timeoutMs?: number;
  /** Bytes of the response body kept (default 64 KiB); the rest is not read. */
  maxResponseBytes?: number;
  /** Redirects followed, each checked again (default 0: a 3xx is the answer). */
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as text, at most `maxResponseBytes` of it. */
  body: string;
  truncated: boolean;
  durationMs: number;
  /** The URL that answered (after any redirects followed). */
  url: string;
}

/** The request was not sent: its URL or an address it resolves to is not allowed. */
export class OutboundRefusedError extends Error {
  override name = "OutboundRefusedError" as const;
}
/** No answer within the deadline. */
export class OutboundTimeoutError extends Error {
  override name = "OutboundTimeoutError" as const;
}

export interface GuardedHttpClient {
  /** @throws {OutboundRefusedError} @throws {OutboundTimeoutError} or a network error (`ECONNREFUSED`, …). */
  send(request: GuardedRequest): Promise<GuardedResponse>;
  close(): void;
}

export interface CreateGuardedHttpClientParameters {
  policy: AddressPolicy;
  /** The resolver (default `dns.lookup`); tests give names that resolve to private addresses. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

const defaultResolve = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Why a URL may not be sent to (not a URL, a scheme other than http and https, credentials in it, or an IP
 * literal the policy refuses), or undefined. A name is checked later, on the addresses it resolves to.
 */
export function outboundUrlRefusal(raw: string, policy: AddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} URLs are not sent to`;
  if (url.username || url.password) return "URLs with credentials are not sent to";
  // An IP literal never reaches the lookup: checked here (the URL parser already turned 2130706433 and 0x7f.1
  // into 127.0.0.1).
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) ? policy.refusal(host) : undefined;
}

export function createGuardedHttpClient(p: CreateGuardedHttpClientParameters): GuardedHttpClient {
  const resolve = p.resolve ?? defaultResolve;

  // Connections are made through this lookup only: every address is checked before the socket uses it.
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.map((a) => p.policy.refusal(a.address)).find((why) => why !== undefined);
        if (addresses.length === 0) return callback(new OutboundRefusedError(`${hostname} resolves to nothing`), "");
        if (refused) return callback(new OutboundRefusedError(`${hostname} resolves to ${refused}`), "");
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
        const first = usable[0] ?? (addresses[0] as LookupAddress);
        callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, ""),
    );
  };
  // Agents of this client only: a pooled socket was always connected through the guarded lookup.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, lookup: guardedLookup, maxSockets: 16 } as http.AgentOptions),
    "https:": new https.Agent({ keepAlive: true, lookup: guardedLookup, maxSockets: 16 } as https.AgentOptions),
  };

  function checkUrl(raw: string): URL {
    const why = outboundUrlRefusal(raw, p.policy);
    if (why) throw new OutboundRefusedError(why);
    return new URL(raw);
  }

  function once(url: URL, r: GuardedRequest, deadline: number, method: string, body: string | Buffer | undefined) {
    return new Promise<GuardedResponse>((resolvePromise, reject) => {
      const started = Date.now();
      const maxBytes = r.maxResponseBytes ?? 65_536;
      const transport = url.protocol === "https:" ? https : http;
      const req = transport.request(url, {
        method,
        agent: agents[url.protocol as "http:" | "https:"],
        headers: {
          ...r.headers,
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
        },
        signal: r.signal,
      });
      const timer = setTimeout(
        () => req.destroy(new OutboundTimeoutError(`no answer from ${url.host} within ${r.timeoutMs ?? 30_000} ms`)),
        Math.max(0, deadline - Date.now()),
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      req.on("error", fail);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => {
          clearTimeout(timer);
          resolvePromise({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            truncated,
            durationMs: Date.now() - started,
            url: url.toString(),
          });
        };
        res.on("data", (chunk: Buffer) => {
          if (size + chunk.length > maxBytes) {
            chunks.push(chunk.subarray(0, maxBytes - size));
            size = maxBytes;
            truncated = true;
            // The rest is not wanted: the socket is dropped rather than drained.
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", finish);
        res.on("error", (error) => (truncated ? undefined : fail(error)));
      });
      req.end(body);
    });
  }

  return {
    async send(r) {
      const deadline = Date.now() + (r.timeoutMs ?? 30_000);
      let url = checkUrl(r.url);
      let method: string = r.method ?? "GET";
      let body = r.body;
      for (let hop = 0; ; hop++) {
        const res = await once(url, r, deadline, method, body);
        const location = res.headers.location;
        if (!REDIRECTS.has(res.status) || !location || hop >= (r.maxRedirects ?? 0)) return res;
        url = checkUrl(new URL(location, url).toString());
        if (res.status !== 307 && res.status !== 308) {
          method = "GET";
          body = undefined;
        }
      }
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
