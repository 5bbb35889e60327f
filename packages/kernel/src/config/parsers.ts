/** Parsers for configuration values; each throws a message that completes "<ENV> ...". */

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
