/**
 * Every configuration option of the platform, in one place: its environment variable, its default and
 * what it does. `loadConfig` reads them from the environment (and an optional JSON config file),
 * validates them at start-up and reports the first bad option by name.
 *
 * `platform config` prints this table with the values in effect.
 */

import { createAddressPolicy } from "../outbound/addressPolicy.ts";
import { type ConfiguredSecretKey, parseSecretKeys } from "../secrets/secretKeys.ts";
import {
  ConfigError,
  parseBool,
  parseChainPorts,
  parseChainRpcUrls,
  parseEnum,
  parseInt_,
  parseList,
  parseNamedValues,
  parseString,
  parseTrustProxy,
  parseUrl,
  type TrustProxy,
} from "./parsers.ts";

export interface OptionDef<T> {
  env: string;
  default: T;
  description: string;
  parse: (raw: string, env: string) => T;
  /** Hidden from logs and `platform config` output. */
  secret?: boolean;
}

const option = <T>(def: OptionDef<T>): OptionDef<T> => def;
const port = (env: string, def: number, description: string) =>
  option({ env, default: def, description, parse: parseInt_(0, 65535) });

export const options = {
  dataDir: option({
    env: "DATA_DIR",
    default: "./data",
    description: "Folder for embedded data: the PGlite database, devnet state and manifest, the admin socket.",
    parse: parseString,
  }),
  databaseUrl: option<string | undefined>({
    env: "DATABASE_URL",
    default: undefined,
    description: "PostgreSQL connection URL; unset = embedded PGlite under DATA_DIR/pglite.",
    parse: parseUrl(["postgres:", "postgresql:"]),
    secret: true,
  }),
  pgliteSharedBuffers: option({
    env: "PGLITE_SHARED_BUFFERS",
    default: "32MB",
    description:
      "PostgreSQL's shared_buffers on the embedded database (resident from the start); more keeps more of a large database's pages in it.",
    parse: (raw: string) => {
      if (!/^[1-9]\d{0,6}(kB|MB|GB)$/.test(raw.trim()))
        throw new ConfigError(`must be a size such as 32MB (got "${raw}")`);
      return raw.trim();
    },
  }),
  redisUrl: option<string | undefined>({
    env: "REDIS_URL",
    default: undefined,
    description: "Redis URL for cross-instance counters and pub/sub; unset = in process.",
    parse: parseUrl(["redis:", "rediss:"]),
    secret: true,
  }),
  role: option({
    env: "PLATFORM_ROLE",
    default: "all" as "all" | "api" | "worker",
    description:
      "What `platform start` runs: all = HTTP servers and background jobs; api = HTTP servers only (any number); worker = background jobs only, no public port. api and worker need DATABASE_URL.",
    parse: parseEnum(["all", "api", "worker"] as const),
  }),
  secretsKeys: option<ConfiguredSecretKey[] | undefined>({
    env: "SECRETS_KEYS",
    default: undefined,
    description:
      "Keys that encrypt secrets at rest (vendor OAuth tokens of wearables connections, signing secrets; AES-256-GCM): `<id>:<base64 of 32 random bytes>`, comma-separated, the first one sealing new values and every one opening the values that name it. Rotate by putting a new key first and keeping the old ones until re-sealed. `platform secrets generate-key` prints a new entry. Unset = a development key generated once in DATA_DIR/secrets.key (mode 0600), warned about at start; `--role api` and `--role worker` refuse to start without it, since every instance on the database needs the same keys.",
    parse: parseSecretKeys,
    secret: true,
  }),
  logLevel: option({
    env: "LOG_LEVEL",
    default: "info" as const,
    description: "pino log level.",
    parse: parseEnum(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const),
  }),
  logFormat: option({
    env: "LOG_FORMAT",
    default: "auto" as const,
    description:
      "How log lines are written: `pretty` (one readable line per event: time, level, service, message, `key=value` fields; coloured on a terminal unless NO_COLOR is set), `json` (one JSON object per line, for collectors), `auto` = pretty when standard output is a terminal, else json. With json, `platform start` prints its banner on standard error, so standard output holds JSON lines only.",
    parse: parseEnum(["auto", "pretty", "json"] as const),
  }),
  logRequests: option<boolean | undefined>({
    env: "LOG_REQUESTS",
    default: undefined,
    description:
      "Access log lines (one per HTTP request): unset = always in json output, in pretty output only at LOG_LEVEL=debug or trace (a terminal stays readable); true = always; false = never.",
    parse: parseBool,
  }),
  host: option({
    env: "HOST",
    default: "127.0.0.1",
    description: "Interface every service listens on.",
    parse: parseString,
  }),
  publicHost: option<string | undefined>({
    env: "PUBLIC_HOST",
    default: undefined,
    description: "Host name used in printed base URLs; default = HOST.",
    parse: parseString,
  }),
  bodyLimit: option({
    env: "HTTP_BODY_LIMIT",
    default: 1_048_576,
    description: "Largest accepted request body in bytes (larger: 413).",
    parse: parseInt_(1024, 100 * 1024 * 1024),
  }),
  shutdownTimeoutMs: option({
    env: "SHUTDOWN_TIMEOUT_MS",
    default: 10_000,
    description: "How long a graceful shutdown waits for in-flight requests before closing them.",
    parse: parseInt_(0, 600_000),
  }),
  trustProxy: option<TrustProxy>({
    env: "TRUST_PROXY",
    default: false,
    description:
      "Proxies whose X-Forwarded-For/-Proto/-Host are believed (Fastify's trustProxy): false = none, the socket's address is the client; a hop count (`1` behind one balancer); a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal (`127.0.0.1,10.0.0.0/8`); true = every hop (only when nothing but the proxy reaches the ports). Throttles, rate limits, access logs and Secure cookies use the client address and protocol it yields.",
    parse: parseTrustProxy,
  }),
  authFailureLimit: option({
    env: "AUTH_FAILURE_LIMIT",
    default: 20,
    description:
      "Failed credentials (API keys, bearer tokens, key pairs, OAuth client secrets and grants) allowed per client address within AUTH_FAILURE_WINDOW_SEC, in every service; further attempts from that address get 429 with Retry-After, without a database lookup. Shared through Redis when `REDIS_URL` is set.",
    parse: parseInt_(1, 1_000_000),
  }),
  authFailureWindowSec: option({
    env: "AUTH_FAILURE_WINDOW_SEC",
    default: 300,
    description: "The sliding window of AUTH_FAILURE_LIMIT, in seconds.",
    parse: parseInt_(1, 86_400),
  }),
  apiKeyCacheTtlMs: option({
    env: "API_KEY_CACHE_TTL_MS",
    default: 5_000,
    description:
      "How long a verified API key is trusted without a database read (a revocation takes effect within it).",
    parse: parseInt_(0, 3_600_000),
  }),
  services: option({
    env: "SERVICES",
    default: ["wearables", "crosschain", "brokerage", "chainstats"],
    description: "Services `platform start` runs (comma-separated).",
    parse: parseList(parseEnum(["wearables", "crosschain", "brokerage", "chainstats"] as const)),
  }),
  wearablesPort: port("WEARABLES_PORT", 8000, "Port of the wearables API (base /api/v1)."),
  wearablesPublicUrl: option<string | undefined>({
    env: "WEARABLES_PUBLIC_URL",
    default: undefined,
    description:
      "Origin users' browsers reach the wearables API at (the anchor's API_BASE_URL): vendors redirect to `<it>/api/v1/oauth/<provider>/callback`, which must be registered with each vendor. Unset = http://PUBLIC_HOST:<the port it listens on>.",
    parse: parseUrl(["http:", "https:"]),
  }),
  wearablesVendorClients: option<Record<string, { clientId: string; clientSecret: string }>>({
    env: "WEARABLES_VENDOR_CLIENTS",
    default: {},
    description:
      "OAuth client of each vendor the platform connects to, `<provider>=<client_id>:<client_secret>`, comma-separated (e.g. `strava=12345:abc…,oura=…`). A vendor without one is listed with is_enabled false; the sandbox has a built-in client.",
    parse: parseNamedValues((raw) => {
      const colon = raw.indexOf(":");
      if (colon < 1 || colon === raw.length - 1)
        throw new ConfigError("each entry must read <provider>=<client_id>:<client_secret>");
      return { clientId: raw.slice(0, colon), clientSecret: raw.slice(colon + 1) };
    }),
    secret: true,
  }),
  wearablesVendorPushSecrets: option<Record<string, string>>({
    env: "WEARABLES_VENDOR_PUSH_SECRETS",
    default: {},
    description:
      "Secret each pushing vendor's notifications are checked with where it is not the client secret, `<provider>=<secret>` (Strava's verify token, Polar's webhook signature key, Withings' callback token).",
    parse: parseNamedValues((raw) => parseString(raw)),
    secret: true,
  }),
  wearablesVendorApiKeys: option<Record<string, string>>({
    env: "WEARABLES_VENDOR_API_KEYS",
    default: {},
    description:
      "Application keys some vendors want on every data request besides the user's token, `<provider>=<key>` (Suunto's API Zone subscription key).",
    parse: parseNamedValues((raw) => parseString(raw)),
    secret: true,
  }),
  wearablesVendorOrigins: option<Record<string, string>>({
    env: "WEARABLES_VENDOR_ORIGINS",
    default: {},
    description:
      "Another origin for a vendor's URLs, `<provider>=<origin>` (each URL keeps its path): a stand-in, a proxy. Unset = the vendor's own cloud; the sandbox's is its own host on WEARABLES_SANDBOX_PORT.",
    parse: parseNamedValues((raw) => parseUrl(["http:", "https:"])(raw)),
  }),
  wearablesSandbox: option({
    env: "WEARABLES_SANDBOX",
    default: true,
    description:
      "Runs the `sandbox` provider, an offline test vendor with its own consent page and data API (on WEARABLES_SANDBOX_PORT), so that connect → sync → data works without a vendor account. Turn it off in production.",
    parse: parseBool,
  }),
  wearablesSandboxPushIntervalSec: option({
    env: "WEARABLES_SANDBOX_PUSH_INTERVAL_SEC",
    default: 60,
    description:
      "How often the sandbox vendor looks for new data of its connected accounts and pushes a notification of it to the API's webhook, as a vendor does; 0 = only on request (`POST /v1/notifications/test`).",
    parse: parseInt_(0, 86_400),
  }),
  wearablesSandboxPort: port(
    "WEARABLES_SANDBOX_PORT",
    8010,
    "Port of the sandbox vendor's cloud (consent page, token endpoint, data API).",
  ),
  wearablesSyncIntervalSec: option({
    env: "WEARABLES_SYNC_INTERVAL_SEC",
    default: 3600,
    description:
      "How often every active connection of a pulling vendor is synced (the anchor's SYNC_INTERVAL_SECONDS); 0 = never on a schedule.",
    parse: parseInt_(0, 86_400 * 7),
  }),
  wearablesWebhookAllowedNetworks: option<string[]>({
    env: "WEARABLES_WEBHOOK_ALLOWED_NETWORKS",
    default: [],
    description:
      "Networks webhook endpoints may be on although not public, as CIDR (`127.0.0.0/8,10.1.0.0/16`). Unset = public addresses only: loopback, private, link-local and the like are refused after DNS resolution and on every redirect.",
    parse: parseList((entry) => {
      try {
        createAddressPolicy({ allow: [entry] });
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
      return entry;
    }),
  }),
  wearablesWebhookTimeoutSec: option({
    env: "WEARABLES_WEBHOOK_TIMEOUT_SEC",
    default: 30,
    description: "How long a webhook receiver has to answer an attempt (Svix's worker_request_timeout).",
    parse: parseInt_(1, 120),
  }),
  wearablesWebhookConcurrency: option({
    env: "WEARABLES_WEBHOOK_CONCURRENCY",
    default: 32,
    description: "Webhook attempts in flight per process, over every endpoint.",
    parse: parseInt_(1, 1000),
  }),
  wearablesWebhookEndpointConcurrency: option({
    env: "WEARABLES_WEBHOOK_ENDPOINT_CONCURRENCY",
    default: 4,
    description: "Attempts in flight per endpoint and process: a slow receiver holds this many, never the whole pool.",
    parse: parseInt_(1, 100),
  }),
  wearablesWebhookRetentionDays: option({
    env: "WEARABLES_WEBHOOK_RETENTION_DAYS",
    default: 30,
    description:
      "Days webhook messages (with their deliveries and attempts) are kept, then deleted by an hourly job; at least 15, so that a 14-day recovery always finds what it resends.",
    parse: parseInt_(15, 3650),
  }),
  wearablesHistoricalDaysOnConnect: option({
    env: "WEARABLES_HISTORICAL_DAYS_ON_CONNECT",
    default: 90,
    description:
      "Days of history a new connection syncs at once (the anchor's HISTORICAL_SYNC_ON_CONNECT, 90 days); 0 = none.",
    parse: parseInt_(0, 365),
  }),
  chainRpcUrls: option<Record<number, string>>({
    env: "CHAIN_RPC_URLS",
    default: {},
    description:
      "External JSON-RPC (http or https) per chain, `1=https://…,8453=https://…`; such chains are not run on the devnet. They carry no contract addresses: chainstats indexes them, crosschain (which needs a SpokePool) leaves them out and says so at start.",
    parse: parseChainRpcUrls,
    secret: true,
  }),
  crosschainPort: port("CROSSCHAIN_PORT", 8100, "Port of the crosschain API (base /api)."),
  crosschainPollMs: option({
    env: "CROSSCHAIN_POLL_MS",
    default: 200,
    description: "How often the SpokePool event indexer asks each chain for a new head.",
    parse: parseInt_(20, 600_000),
  }),
  crosschainLogRange: option({
    env: "CROSSCHAIN_LOG_RANGE",
    default: 5_000,
    description: "Largest eth_getLogs block range the indexer asks for (it halves on RPC range errors).",
    parse: parseInt_(1, 1_000_000),
  }),
  crosschainReaderThreads: option({
    env: "CROSSCHAIN_READER_THREADS",
    default: 2,
    description:
      "Threads the SpokePool indexers read and decode eth_getLogs replies on (successive ranges spread over them, one eth_getLogs per thread at a time); 0 reads in the main thread, which a backfill then stalls.",
    parse: parseInt_(0, 16),
  }),
  crosschainFinalityDepth: option({
    env: "CROSSCHAIN_FINALITY_DEPTH",
    default: 128,
    description:
      "Blocks below the stored tip that can still be reorganised; a deeper reorg re-indexes the chain's SpokePool events.",
    parse: parseInt_(1, 100_000),
  }),
  crosschainRoutesFile: option<string | undefined>({
    env: "CROSSCHAIN_ROUTES_FILE",
    default: undefined,
    description:
      "JSON file of enabled routes; default: every token on every pair of SpokePool chains, plus native routes.",
    parse: parseString,
  }),
  crosschainRelayer: option({
    env: "CROSSCHAIN_RELAYER",
    default: true,
    description:
      "Run the relayer with `platform start` (needs CROSSCHAIN_RELAYER_KEY, or the devnet's relayer account).",
    parse: parseBool,
  }),
  crosschainRelayerKey: option<string | undefined>({
    env: "CROSSCHAIN_RELAYER_KEY",
    default: undefined,
    description: "Private key (0x…) the relayer fills with; default on the devnet: the manifest's relayer account.",
    parse: (raw) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim()))
        throw new ConfigError("must be a 0x-prefixed 32-byte hex private key");
      return raw.trim();
    },
    secret: true,
  }),
  crosschainDepositAddressKey: option<string | undefined>({
    env: "CROSSCHAIN_DEPOSIT_ADDRESS_KEY",
    default: undefined,
    description:
      "Private key (0x…) of the CounterfactualBeacon's signer: it signs and sends the deposits (and refunds) from counterfactual deposit addresses; default on the devnet: the manifest's signer account. Without one, /swap/counterfactual is refused.",
    parse: (raw) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim()))
        throw new ConfigError("must be a 0x-prefixed 32-byte hex private key");
      return raw.trim();
    },
    secret: true,
  }),
  crosschainDepositAddressMaxFeeBps: option({
    env: "CROSSCHAIN_DEPOSIT_ADDRESS_MAX_FEE_BPS",
    default: 100,
    description:
      "Fee cap of a counterfactual deposit address beyond the beacon's fixed cap, in basis points of each input (committed in the address: changing it issues new addresses).",
    parse: parseInt_(0, 10_000),
  }),
  crosschainRelayerMarginBps: option({
    env: "CROSSCHAIN_RELAYER_MARGIN_BPS",
    default: 0,
    description: "Profit the relayer requires on top of its gas cost, in basis points of the input amount.",
    parse: parseInt_(0, 10_000),
  }),
  crosschainRelayerLeaseSec: option({
    env: "CROSSCHAIN_RELAYER_LEASE_SEC",
    default: 30,
    description:
      "TTL of the kernel leases `crosschain.relayer:<chain>:<address>` (a relayer key per destination chain) `crosschain.deposit-addresses:<chain>` (the deposit-address watcher) and `crosschain.indexer:<chain>` (the SpokePool indexers, whose deposits the relayer fills): with several instances one works, and another takes over this long after the holder was killed (at once after a clean stop).",
    parse: parseInt_(1, 3_600),
  }),
  crosschainSettlement: option({
    env: "CROSSCHAIN_SETTLEMENT",
    default: true,
    description:
      "Run the dataworker with `platform start`: it settles root bundles on the HubPool (relayer repayments, refunds of expired deposits, slow fills); needs CROSSCHAIN_SETTLEMENT_KEY, or the devnet's admin account. One instance settles at a time (kernel lease `crosschain.settlement`).",
    parse: parseBool,
  }),
  crosschainSettlementKey: option<string | undefined>({
    env: "CROSSCHAIN_SETTLEMENT_KEY",
    default: undefined,
    description:
      "Private key (0x…) of the trusted proposer: it posts the HubPool bond, proposes and executes root bundles; default on the devnet: the manifest's admin account (which also bridges roots and tokens to the devnet's spokes).",
    parse: (raw) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim()))
        throw new ConfigError("must be a 0x-prefixed 32-byte hex private key");
      return raw.trim();
    },
    secret: true,
  }),
  crosschainSettlementIntervalSec: option({
    env: "CROSSCHAIN_SETTLEMENT_INTERVAL_SEC",
    default: 5,
    description: "How often the dataworker looks for something to settle (the bundle interval when there is).",
    parse: parseInt_(1, 86_400),
  }),
  crosschainSettlementEndBlockBuffer: option({
    env: "CROSSCHAIN_SETTLEMENT_END_BLOCK_BUFFER",
    default: 2,
    description:
      "Blocks below each chain's head a bundle's range ends (the finality buffer; Across uses per-chain buffers on mainnet).",
    parse: parseInt_(0, 10_000),
  }),
  crosschainSettlementFastLiveness: option({
    env: "CROSSCHAIN_SETTLEMENT_FAST_LIVENESS",
    default: true,
    description:
      "Devnet only: once a proposal is on the hub, move the HubPool's Timer (UMA's test clock, which the devnet's HubPool reads its time from) past its liveness (601 s, the shortest the HubPool accepts), so that a bundle executes within seconds; off, the dataworker waits the liveness out. Ignored for a HubPool without a Timer, as every production HubPool is.",
    parse: parseBool,
  }),
  brokerageAuthPort: port(
    "BROKERAGE_AUTH_PORT",
    8200,
    "Port of the brokerage authorization host (login and consent pages, `/oauth/authorize`).",
  ),
  brokerageLivePort: port(
    "BROKERAGE_LIVE_PORT",
    8201,
    "Port of the brokerage live trading API (`/v2/…`, and `/oauth/token`, as at the anchor).",
  ),
  brokeragePaperPort: port("BROKERAGE_PAPER_PORT", 8202, "Port of the brokerage paper trading API (`/v2/…`)."),
  brokerageDataPort: port(
    "BROKERAGE_DATA_PORT",
    8203,
    "Port of the brokerage market data host (REST `/v2/stocks/…`, `/v1beta3/crypto/…` and the data streams `/v2/{feed}`).",
  ),
  brokerageAuthUrl: option<string | undefined>({
    env: "BROKERAGE_AUTH_URL",
    default: undefined,
    description:
      "Public origin of the authorization host (the OAuth issuer, e.g. https://auth.example.com behind a proxy); default http://<PUBLIC_HOST or HOST>:<BROKERAGE_AUTH_PORT>. An https origin makes the session cookie Secure.",
    parse: parseUrl(["http:", "https:"]),
  }),
  brokerageLiveUrl: option<string | undefined>({
    env: "BROKERAGE_LIVE_URL",
    default: undefined,
    description:
      "Public origin of the live trading API (where the token endpoint is); default http://<PUBLIC_HOST or HOST>:<BROKERAGE_LIVE_PORT>.",
    parse: parseUrl(["http:", "https:"]),
  }),
  brokerageStartingCash: option({
    env: "BROKERAGE_STARTING_CASH",
    default: "100000",
    description: "Cash (USD) a new account starts with.",
    parse: (raw) => {
      if (!/^\d{1,12}(\.\d{1,2})?$/.test(raw.trim()))
        throw new ConfigError("must be an amount such as 100000 or 2500.50");
      return raw.trim();
    },
  }),
  brokerageMarketSession: option({
    env: "BROKERAGE_MARKET_SESSION",
    default: "always" as const,
    description:
      "Market sessions of the brokerage: `always` (open at any hour, so a developer can trade whenever) or `nyse` (the NYSE calendar: orders wait for the session, `opg`/`cls` behave as at Alpaca). Crypto trades around the clock in both.",
    parse: parseEnum(["always", "nyse"] as const),
  }),
  brokerageMarketSeed: option({
    env: "BROKERAGE_MARKET_SEED",
    default: "platform",
    description:
      "Seed of the brokerage market's price process: the same seed gives the same prices, quotes and tape at every instant (on every instance).",
    parse: (raw) => {
      if (!/^[\x21-\x7e]{1,64}$/.test(raw)) throw new ConfigError("must be 1 to 64 printable characters");
      return raw;
    },
  }),
  brokerageRateLimit: option({
    env: "BROKERAGE_RATE_LIMIT",
    default: 200,
    description:
      "Requests per minute per access token or key pair, to the trading API and, counted apart, to the market data API (the anchor's 200 each); over it, 429 with code 42910000. Shared through Redis when `REDIS_URL` is set.",
    parse: (raw) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new ConfigError("must be an integer from 1 to 1000000");
      return n;
    },
  }),
  brokerageDataRetentionDays: option({
    env: "BROKERAGE_DATA_RETENTION_DAYS",
    default: 7,
    description:
      "Days of recorded trades and quotes the market data host keeps (bars are kept for good). The market records about 50 quotes and 20 trades a second; see the README for the storage a day takes.",
    parse: parseInt_(1, 36_500),
  }),
  brokerageDataBackfillDays: option({
    env: "BROKERAGE_DATA_BACKFILL_DAYS",
    default: 1,
    description:
      "On the first start, the market data recorder records the market from this many days before now (history for bars and charts), then keeps up with the present.",
    parse: parseInt_(0, 3_660),
  }),
  brokerageDataStreamLease: option({
    env: "BROKERAGE_DATA_STREAM_LEASE_SECONDS",
    default: 15,
    description:
      "Expiry of a market data stream's connection slot: renewed while the client answers pings, so a slot of a dead instance or a half-open socket is free again after at most this long.",
    parse: parseInt_(3, 3_600),
  }),
  chainstatsPort: port("CHAINSTATS_PORT", 8300, "Port of the chain statistics API (`/v2/api`)."),
  chainstatsChains: option<number[] | undefined>({
    env: "CHAINSTATS_CHAINS",
    default: undefined,
    description: "Chain ids the block indexer follows (comma-separated); default every chain with an RPC.",
    parse: parseList(parseInt_(1, 2 ** 53 - 1)),
  }),
  chainstatsStartBlock: option({
    env: "CHAINSTATS_START_BLOCK",
    default: 0,
    description: "First block the indexer reads on a chain it has never indexed.",
    parse: parseInt_(0, 2 ** 53 - 1),
  }),
  chainstatsBatchSize: option({
    env: "CHAINSTATS_BATCH_SIZE",
    default: 100,
    description: "Blocks per JSON-RPC batch request.",
    parse: parseInt_(1, 1000),
  }),
  chainstatsConcurrency: option({
    env: "CHAINSTATS_CONCURRENCY",
    default: 4,
    description: "Batch requests in flight per chain.",
    parse: parseInt_(1, 64),
  }),
  chainstatsWindowSize: option({
    env: "CHAINSTATS_WINDOW_SIZE",
    default: 2_000,
    description: "Blocks written per transaction while backfilling (memory stays bounded by it).",
    parse: parseInt_(1, 100_000),
  }),
  chainstatsFinalityDepth: option({
    env: "CHAINSTATS_FINALITY_DEPTH",
    default: 64,
    description: "Blocks below the head that can still be reorganised; a deeper reorg re-indexes the chain.",
    parse: parseInt_(1, 100_000),
  }),
  chainstatsPollMs: option({
    env: "CHAINSTATS_POLL_MS",
    default: 500,
    description: "How often a caught-up indexer asks for a new head.",
    parse: parseInt_(50, 600_000),
  }),
  devnet: option({
    env: "DEVNET",
    default: true,
    description: "Run the local devnet chains with `platform start` (false = chains use external RPCs only).",
    parse: parseBool,
  }),
  devnetChains: option({
    env: "DEVNET_CHAINS",
    default: [1, 10, 137, 8453, 42161, 999, 1337],
    description: "Chain ids the devnet runs (those with an entry in CHAIN_RPC_URLS are left out).",
    parse: parseList(parseInt_(1, 2 ** 53 - 1)),
  }),
  devnetPorts: option<Record<number, number>>({
    env: "DEVNET_PORTS",
    default: {},
    description:
      "RPC port per devnet chain, `1=8545,10=8546`; default 1→8545, 10→8546, 137→8547, 8453→8548, 42161→8549, 999→8550, 1337→8551; 0 = any free port.",
    parse: parseChainPorts,
  }),
  devnetBlockTime: option<number | "auto">({
    env: "DEVNET_BLOCK_TIME",
    default: "auto",
    description:
      "Seconds between interval blocks (transactions are still mined at once); auto = the chain's typical block time, at least 2; 0 = none.",
    parse: (raw) => (raw.trim() === "auto" ? "auto" : parseInt_(0, 3600)(raw)),
  }),
};

export type Options = typeof options;
export type Config = { [K in keyof Options]: Options[K]["default"] };
export type ConfigKey = keyof Options;
