/** Parsers for configuration values; each throws a message that completes "<ENV> ...". */
import { isIP } from "node:net";

/** An option with a value it cannot take; the message names the option and says why. */
export class ConfigError extends Error {
  override name = "ConfigError" as const;
}

export type ConfigErrorType = ConfigError & { name: "ConfigError" };

export const parseString = (raw: string): string => {
  if (raw.trim() === "") throw new ConfigError("must not be empty");
  return raw.trim();
};

export const parseInt_ =
  (min: number, max: number) =>
  (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`must be an integer (got "${raw}")`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw new ConfigError(`must be between ${min} and ${max} (got ${n})`);
    return n;
  };

export const parseBool = (raw: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`must be true or false (got "${raw}")`);
};

export const parseEnum =
  <const T extends readonly string[]>(values: T) =>
  (raw: string): T[number] => {
    const v = raw.trim();
    if (!values.includes(v)) throw new ConfigError(`must be one of ${values.join(", ")} (got "${raw}")`);
    return v as T[number];
  };

export const parseList =
  <T>(item: (raw: string) => T) =>
  (raw: string): T[] =>
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map(item);

export const parseUrl =
  (protocols: string[]) =>
  (raw: string): string => {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw new ConfigError("must be a URL");
    }
    if (!protocols.includes(url.protocol)) {
      throw new ConfigError(`must be a URL with scheme ${protocols.map((p) => p.replace(":", "")).join(" or ")}`);
    }
    return raw.trim();
  };

/** `1=https://rpc.example,8453=wss://…` → `{1: "https://rpc.example", 8453: "wss://…"}`. */
export const parseChainRpcUrls = (raw: string): Record<number, string> => {
  const out: Record<number, string> = {};
  for (const entry of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf("=");
    const id = Number(entry.slice(0, eq));
    if (eq < 1 || !Number.isSafeInteger(id) || id < 1)
      throw new ConfigError(`entry "${entry}" must read <chainId>=<url>`);
    // HTTP only: the indexers batch JSON-RPC over HTTP (chains' rpcTransport), so a ws(s):// URL would pass
    // here and then fail in every indexer.
    out[id] = parseUrl(["http:", "https:"])(entry.slice(eq + 1));
  }
  return out;
};

/**
 * `strava=a,oura=b` → `{strava: "a", oura: "b"}`: names are lower-case identifiers, each value is checked by
 * `value` (which may throw a ConfigError naming what it expects).
 */
export const parseNamedValues =
  <T>(value: (raw: string, name: string) => T) =>
  (raw: string): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const entry of raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const eq = entry.indexOf("=");
      const name = entry.slice(0, eq).trim();
      if (eq < 1 || !/^[a-z][a-z0-9_]*$/.test(name))
        throw new ConfigError(`entry "${name || entry}" must read <name>=<value>`);
      out[name] = value(entry.slice(eq + 1).trim(), name);
    }
    return out;
  };

/** `1=8545,10=8546` → `{1: 8545, 10: 8546}`. */
export const parseChainPorts = (raw: string): Record<number, number> => {
  const out: Record<number, number> = {};
  for (const entry of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [id, port] = entry.split("=");
    const chainId = Number(id);
    if (!Number.isSafeInteger(chainId) || chainId < 1 || port === undefined) {
      throw new ConfigError(`entry "${entry}" must read <chainId>=<port>`);
    }
    out[chainId] = parseInt_(0, 65535)(port);
  }
  return out;
};

/** Which proxies are believed about the client (`X-Forwarded-For`, `-Proto`, `-Host`): Fastify's `trustProxy`. */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names of address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = ["loopback", "linklocal", "uniquelocal"];

/**
 * `false` (or `0`): no proxy, the socket's address is the client; `true`: every hop is trusted (only when
 * nothing but the proxy can reach the port); a hop count `1`..: that many proxies in front; or a comma-separated
 * list of addresses, CIDR ranges and proxy-addr names (`loopback`, `linklocal`, `uniquelocal`) whose forwarding
 * headers are believed.
 */
export const parseTrustProxy = (raw: string): TrustProxy => {
  const v = raw.trim().toLowerCase();
  if (["false", "off", "no", "0"].includes(v)) return false;
  if (["true", "on", "yes"].includes(v)) return true;
  if (/^\d+$/.test(v)) return parseInt_(1, 100)(v);
  const entries = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError("must not be empty");
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.includes(entry)) continue;
    const [address = "", prefix, ...rest] = entry.split("/");
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk =
      prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix) ||
      // proxy-addr also takes an IPv4 netmask (`10.0.0.0/255.0.0.0`).
      (family === 4 && isIP(prefix) === 4);
    if (family === 0 || rest.length > 0 || !prefixOk) {
      throw new ConfigError(
        `must be true, false, a hop count or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal (bad entry "${entry}")`,
      );
    }
  }
  return entries;
};
