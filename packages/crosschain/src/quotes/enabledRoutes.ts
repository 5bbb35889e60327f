/**
 * The enabled routes: which (origin chain, input token) → (destination chain, output token) transfers the
 * service quotes and the relayer fills.
 *
 * Default (no configuration): on every ordered pair of distinct SpokePool chains, one route per token symbol
 * present on both chains (USDC → USDC, WETH → WETH, …), plus a native route (`isNative: true`) from every chain
 * whose wrapped native token also exists on the destination: "ETH" → "ETH" when the destination wraps ETH
 * too, "ETH" → "WETH" when its own native coin is another (ETH deposited on Base, WETH received on Polygon), as
 * at the anchor. A native route carries the wrapped token addresses, like the anchor's `/available-routes`.
 *
 * Override: a JSON file (path given by the caller, e.g. from `CROSSCHAIN_ROUTES_FILE`):
 *
 * ```json
 * {
 *   "includeDefaults": false,
 *   "routes": [
 *     { "originChainId": 10, "destinationChainId": 8453, "originToken": "USDC" },
 *     { "originChainId": 10, "destinationChainId": 8453, "originToken": "USDC", "destinationToken": "DAI" },
 *     { "originChainId": 1, "destinationChainId": 10, "originToken": "WETH", "isNative": true },
 *     { "originChainId": 1, "destinationChainId": 10, "originToken": "0xA0b8…", "destinationToken": "0x0b2C…" }
 *   ],
 *   "disable": [{ "symbol": "WBTC" }, { "originChainId": 137 }, { "destinationChainId": 1, "symbol": "DAI" }]
 * }
 * ```
 *
 * - `routes`: routes to enable; a token is a symbol or an address known on that chain; `destinationToken`
 *   defaults to the origin token's symbol on the destination chain; `isNative` requires the wrapped native token.
 * - `includeDefaults`: keep the default routes too; default `true` when `routes` is absent, `false` otherwise.
 * - `disable`: filters removing routes (applied last); every given field must match (symbols match either side).
 * - A bare JSON array is read as `{ "routes": [...] }`.
 *
 * Every problem (unknown chain or token, bad shape) is a `ConfigError` naming the offending entry.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "@platform/kernel";
import { getAddress, isAddress } from "viem";
import type { SpokeChain, SpokeToken } from "../deployments.ts";

/** A route record, exactly as `GET /available-routes` returns it. */
export interface RouteRecord {
  originChainId: number;
  originToken: `0x${string}`;
  destinationChainId: number;
  destinationToken: `0x${string}`;
  originTokenSymbol: string;
  destinationTokenSymbol: string;
  isNative: boolean;
}

/** Identifies a transfer: the shape of a deposit (the relayer) or of a quote request. */
export interface RouteQuery {
  originChainId: number;
  destinationChainId: number;
  inputToken: string;
  outputToken: string;
  /** true: only the native route; false: only the ERC-20 route; omitted: either. */
  isNative?: boolean;
}

/** Filters of `GET /available-routes`: addresses compare case-insensitively, symbols upper-cased. */
export interface RouteFilter {
  originChainId?: number;
  destinationChainId?: number;
  originToken?: string;
  destinationToken?: string;
  originTokenSymbol?: string;
  destinationTokenSymbol?: string;
}

/** The enabled route table with its lookups. */
export interface EnabledRoutes {
  /** Every enabled route, by origin then destination chain; within a pair, in the chain's token order (defaults:
   * the chain's token list, native route last) or the configuration's order. */
  readonly routes: readonly RouteRecord[];
  isRouteEnabled(query: RouteQuery): boolean;
  /** The matching route; without `isNative` the ERC-20 route is preferred over the native one. */
  find(query: RouteQuery): RouteRecord | undefined;
  filter(filter: RouteFilter): RouteRecord[];
}

/** One `routes` entry of the JSON configuration. */
export interface RouteSpec {
  originChainId: number;
  destinationChainId: number;
  /** Symbol or address on the origin chain. */
  originToken: string;
  /** Symbol or address on the destination chain; default: the origin token's symbol. */
  destinationToken?: string;
  isNative?: boolean;
}

/** One `disable` entry of the JSON configuration. */
export interface RouteDisableSpec {
  originChainId?: number;
  destinationChainId?: number;
  /** Matches the origin or destination token symbol (case-insensitive). */
  symbol?: string;
  originToken?: string;
  destinationToken?: string;
}

/** The JSON configuration (see the module comment). */
export interface RoutesConfig {
  includeDefaults?: boolean;
  routes?: RouteSpec[];
  disable?: RouteDisableSpec[];
}

/** `isRouteEnabled` for callers holding a route table (e.g. the relayer, through its `QuoteContext`). */
export function isRouteEnabled(query: RouteQuery, routes: EnabledRoutes): boolean {
  return routes.isRouteEnabled(query);
}

const lower = (a: string) => a.toLowerCase();
const routeKey = (o: number, d: number, input: string, output: string) => `${o}:${d}:${lower(input)}:${lower(output)}`;

/** The wrapped native token of a chain as listed in its tokens, with the native symbol it wraps. */
export function wrappedNativeOf(chain: SpokeChain): { token: SpokeToken; nativeSymbol: string } | undefined {
  if (!chain.wrappedNativeToken) return undefined;
  const token = chain.tokens.find((t) => lower(t.address) === lower(chain.wrappedNativeToken as string));
  if (!token) return undefined;
  const nativeSymbol = /^W[A-Z0-9]+$/i.test(token.symbol) ? token.symbol.slice(1).toUpperCase() : token.symbol;
  return { token, nativeSymbol };
}

/** The default route table (see the module comment). */
export function defaultRoutes(chains: readonly SpokeChain[]): RouteRecord[] {
  const routes: RouteRecord[] = [];
  for (const origin of chains) {
    for (const destination of chains) {
      if (origin.chainId === destination.chainId) continue;
      for (const input of origin.tokens) {
        const output = destination.tokens.find((t) => t.symbol.toUpperCase() === input.symbol.toUpperCase());
        if (!output) continue;
        routes.push(record(origin.chainId, input, destination.chainId, output, false));
      }
      const originNative = wrappedNativeOf(origin);
      if (!originNative) continue;
      const wrapped = originNative.token.symbol.toUpperCase();
      const output = destination.tokens.find((t) => t.symbol.toUpperCase() === wrapped);
      if (output) routes.push(nativeRoute(origin, originNative, destination, output));
    }
  }
  return routes;
}

function record(
  originChainId: number,
  input: SpokeToken,
  destinationChainId: number,
  output: SpokeToken,
  isNative: boolean,
): RouteRecord {
  return {
    originChainId,
    originToken: getAddress(input.address),
    destinationChainId,
    destinationToken: getAddress(output.address),
    originTokenSymbol: input.symbol,
    destinationTokenSymbol: output.symbol,
    isNative,
  };
}

// ---------------------------------------------------------------------------------------------------------
// JSON configuration

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function chainIdField(entry: Record<string, unknown>, key: string, where: string, required: boolean) {
  const v = entry[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
    throw new ConfigError(`${where}.${key} must be a positive integer chain id`);
  }
  return v;
}

function stringField(entry: Record<string, unknown>, key: string, where: string, required: boolean) {
  const v = entry[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "string" || v.trim() === "") throw new ConfigError(`${where}.${key} must be a non-empty string`);
  return v.trim();
}

function checkKeys(entry: Record<string, unknown>, allowed: readonly string[], where: string) {
  for (const key of Object.keys(entry)) {
    if (!allowed.includes(key))
      throw new ConfigError(`${where}: unknown field "${key}" (allowed: ${allowed.join(", ")})`);
  }
}

/** Validate the shape of a parsed JSON configuration (token and chain names are resolved later). */
export function parseRoutesConfig(json: unknown, source = "routes config"): RoutesConfig {
  const root = Array.isArray(json) ? { routes: json } : json;
  if (!isObject(root)) throw new ConfigError(`${source}: expected an object or an array of routes`);
  checkKeys(root, ["includeDefaults", "routes", "disable"], source);
  const config: RoutesConfig = {};
  if (root.includeDefaults !== undefined) {
    if (typeof root.includeDefaults !== "boolean")
      throw new ConfigError(`${source}: includeDefaults must be a boolean`);
    config.includeDefaults = root.includeDefaults;
  }
  if (root.routes !== undefined) {
    if (!Array.isArray(root.routes)) throw new ConfigError(`${source}: routes must be an array`);
    config.routes = root.routes.map((entry, i) => {
      const where = `${source}: routes[${i}]`;
      if (!isObject(entry)) throw new ConfigError(`${where} must be an object`);
      checkKeys(entry, ["originChainId", "destinationChainId", "originToken", "destinationToken", "isNative"], where);
      if (entry.isNative !== undefined && typeof entry.isNative !== "boolean") {
        throw new ConfigError(`${where}.isNative must be a boolean`);
      }
      const spec: RouteSpec = {
        originChainId: chainIdField(entry, "originChainId", where, true) as number,
        destinationChainId: chainIdField(entry, "destinationChainId", where, true) as number,
        originToken: stringField(entry, "originToken", where, true) as string,
      };
      const destinationToken = stringField(entry, "destinationToken", where, false);
      if (destinationToken !== undefined) spec.destinationToken = destinationToken;
      if (entry.isNative !== undefined) spec.isNative = entry.isNative as boolean;
      return spec;
    });
  }
  if (root.disable !== undefined) {
    if (!Array.isArray(root.disable)) throw new ConfigError(`${source}: disable must be an array`);
    config.disable = root.disable.map((entry, i) => {
      const where = `${source}: disable[${i}]`;
      if (!isObject(entry)) throw new ConfigError(`${where} must be an object`);
      const keys = ["originChainId", "destinationChainId", "symbol", "originToken", "destinationToken"];
      checkKeys(entry, keys, where);
      if (Object.keys(entry).length === 0)
        throw new ConfigError(`${where} must name at least one of ${keys.join(", ")}`);
      const spec: RouteDisableSpec = {};
      const o = chainIdField(entry, "originChainId", where, false);
      const d = chainIdField(entry, "destinationChainId", where, false);
      const symbol = stringField(entry, "symbol", where, false);
      const originToken = stringField(entry, "originToken", where, false);
      const destinationToken = stringField(entry, "destinationToken", where, false);
      for (const [name, value] of [
        ["originToken", originToken],
        ["destinationToken", destinationToken],
      ] as const) {
        if (value !== undefined && !isAddress(value, { strict: false })) {
          throw new ConfigError(`${where}.${name} must be an address`);
        }
      }
      if (o !== undefined) spec.originChainId = o;
      if (d !== undefined) spec.destinationChainId = d;
      if (symbol !== undefined) spec.symbol = symbol;
      if (originToken !== undefined) spec.originToken = originToken;
      if (destinationToken !== undefined) spec.destinationToken = destinationToken;
      return spec;
    });
  }
  return config;
}

/** Read and validate a JSON routes file. */
export function readRoutesConfigFile(path: string): RoutesConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`routes file ${path} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`routes file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseRoutesConfig(json, `routes file ${path}`);
}

function resolveToken(chain: SpokeChain, ref: string, where: string): SpokeToken {
  const token = isAddress(ref, { strict: false })
    ? chain.tokens.find((t) => lower(t.address) === lower(ref))
    : chain.tokens.find((t) => t.symbol.toUpperCase() === ref.toUpperCase());
  if (!token) {
    const known = chain.tokens.map((t) => t.symbol).join(", ") || "none";
    throw new ConfigError(`${where}: token "${ref}" is not known on chain ${chain.chainId} (known: ${known})`);
  }
  return token;
}

function routeFromSpec(chains: ReadonlyMap<number, SpokeChain>, spec: RouteSpec, where: string): RouteRecord {
  const origin = chains.get(spec.originChainId);
  const destination = chains.get(spec.destinationChainId);
  if (!origin) throw new ConfigError(`${where}: chain ${spec.originChainId} has no SpokePool on this service`);
  if (!destination)
    throw new ConfigError(`${where}: chain ${spec.destinationChainId} has no SpokePool on this service`);
  if (origin.chainId === destination.chainId)
    throw new ConfigError(`${where}: origin and destination are the same chain`);
  const input = resolveToken(origin, spec.originToken, `${where}.originToken`);
  const output = resolveToken(destination, spec.destinationToken ?? input.symbol, `${where}.destinationToken`);
  if (!spec.isNative) return record(origin.chainId, input, destination.chainId, output, false);
  const originNative = wrappedNativeOf(origin);
  if (!originNative || lower(originNative.token.address) !== lower(input.address)) {
    throw new ConfigError(`${where}: a native route needs the wrapped native token of chain ${origin.chainId}`);
  }
  if (output.symbol.toUpperCase() !== originNative.token.symbol.toUpperCase()) {
    throw new ConfigError(
      `${where}: a native route delivers ${originNative.token.symbol} on chain ${destination.chainId}, not ${output.symbol}`,
    );
  }
  return nativeRoute(origin, originNative, destination, output);
}

/**
 * A native route: the origin's native coin in (as its wrapped token), `output` (the same wrapped coin on
 * the destination) out, received as the native coin where it is the destination's own wrapped native
 * and as the token itself elsewhere (ETH to a chain of another native coin arrives as WETH).
 */
function nativeRoute(
  origin: SpokeChain,
  originNative: NonNullable<ReturnType<typeof wrappedNativeOf>>,
  destination: SpokeChain,
  output: SpokeToken,
): RouteRecord {
  const destinationNative = wrappedNativeOf(destination);
  const receivedNative = destinationNative && lower(destinationNative.token.address) === lower(output.address);
  return {
    ...record(origin.chainId, originNative.token, destination.chainId, output, true),
    originTokenSymbol: originNative.nativeSymbol,
    destinationTokenSymbol: receivedNative ? destinationNative.nativeSymbol : output.symbol,
  };
}

function matchesDisable(route: RouteRecord, d: RouteDisableSpec): boolean {
  if (d.originChainId !== undefined && route.originChainId !== d.originChainId) return false;
  if (d.destinationChainId !== undefined && route.destinationChainId !== d.destinationChainId) return false;
  if (d.originToken !== undefined && lower(route.originToken) !== lower(d.originToken)) return false;
  if (d.destinationToken !== undefined && lower(route.destinationToken) !== lower(d.destinationToken)) return false;
  if (d.symbol !== undefined) {
    const s = d.symbol.toUpperCase();
    if (route.originTokenSymbol.toUpperCase() !== s && route.destinationTokenSymbol.toUpperCase() !== s) return false;
  }
  return true;
}

function matchesFilter(route: RouteRecord, f: RouteFilter): boolean {
  return (
    (f.originChainId === undefined || route.originChainId === f.originChainId) &&
    (f.destinationChainId === undefined || route.destinationChainId === f.destinationChainId) &&
    (f.originToken === undefined || lower(route.originToken) === lower(f.originToken)) &&
    (f.destinationToken === undefined || lower(route.destinationToken) === lower(f.destinationToken)) &&
    (f.originTokenSymbol === undefined ||
      route.originTokenSymbol.toUpperCase() === f.originTokenSymbol.toUpperCase()) &&
    (f.destinationTokenSymbol === undefined ||
      route.destinationTokenSymbol.toUpperCase() === f.destinationTokenSymbol.toUpperCase())
  );
}

/** Build the route table from the chains and an optional configuration. */
export function buildEnabledRoutes(chains: readonly SpokeChain[], config?: RoutesConfig): EnabledRoutes {
  const byId = new Map(chains.map((c) => [c.chainId, c]));
  const includeDefaults = config?.includeDefaults ?? config?.routes === undefined;
  const candidates: RouteRecord[] = includeDefaults ? defaultRoutes(chains) : [];
  for (const [i, spec] of (config?.routes ?? []).entries()) candidates.push(routeFromSpec(byId, spec, `routes[${i}]`));

  // De-duplicate (a configured route may repeat a default one), apply `disable`, sort.
  const unique = new Map<string, RouteRecord>();
  for (const r of candidates) {
    const key = `${routeKey(r.originChainId, r.destinationChainId, r.originToken, r.destinationToken)}:${r.isNative}`;
    if (!unique.has(key)) unique.set(key, r);
  }
  const routes = [...unique.values()]
    .filter((r) => !(config?.disable ?? []).some((d) => matchesDisable(r, d)))
    .sort((a, b) => a.originChainId - b.originChainId || a.destinationChainId - b.destinationChainId);
  Object.freeze(routes);
  for (const r of routes) Object.freeze(r);

  const index = new Map<string, RouteRecord[]>();
  for (const r of routes) {
    const key = routeKey(r.originChainId, r.destinationChainId, r.originToken, r.destinationToken);
    index.set(key, [...(index.get(key) ?? []), r]);
  }
  const find = (q: RouteQuery): RouteRecord | undefined => {
    const matches = index.get(routeKey(q.originChainId, q.destinationChainId, q.inputToken, q.outputToken));
    if (!matches) return undefined;
    if (q.isNative === undefined) return matches.find((r) => !r.isNative) ?? matches[0];
    return matches.find((r) => r.isNative === q.isNative);
  };
  return {
    routes,
    find,
    isRouteEnabled: (q) => find(q) !== undefined,
    filter: (f) => routes.filter((r) => matchesFilter(r, f)),
  };
}

/** The route table of the service: the JSON file at `routesFile` when given, else the defaults. */
export function loadEnabledRoutes(chains: readonly SpokeChain[], options: { routesFile?: string } = {}): EnabledRoutes {
  const file = options.routesFile?.trim();
  return buildEnabledRoutes(chains, file ? readRoutesConfigFile(file) : undefined);
}
