/**
 * The vendors this platform connects to, and what the configuration says of each: OAuth client, push secret,
 * origin. `/oauth/providers` lists every provider of the anchor (plus the sandbox) with whether it is enabled:
 * a cloud vendor is enabled once its OAuth client is configured (`WEARABLES_VENDOR_CLIENTS`).
 */
import type { Config } from "@platform/kernel";
import { PROVIDER_NAMES } from "../domain/providers.ts";
import { fitbit } from "./adapters/fitbit.ts";
import { garmin } from "./adapters/garmin.ts";
import { googleHealth } from "./adapters/googleHealth.ts";
import { oura } from "./adapters/oura.ts";
import { polar } from "./adapters/polar.ts";
import { sandbox } from "./adapters/sandbox.ts";
import { strava } from "./adapters/strava.ts";
import { suunto } from "./adapters/suunto.ts";
import { ultrahuman } from "./adapters/ultrahuman.ts";
import { whoop } from "./adapters/whoop.ts";
import { withings } from "./adapters/withings.ts";
import type { VendorCredentials } from "./oauthClient.ts";
import type { PushSecrets, VendorAdapter, VendorUrls } from "./types.ts";
import { resolveVendorUrls } from "./vendorUrls.ts";

/** Every adapter, by provider name. */
export const VENDOR_ADAPTERS: readonly VendorAdapter[] = [
  garmin,
  googleHealth,
  polar,
  suunto,
  whoop,
  strava,
  oura,
  fitbit,
  ultrahuman,
  withings,
  sandbox,
];

/**
 * The sandbox's own client: it is an offline test vendor whose cloud runs inside the platform, so its
 * credentials are not a secret of anyone's (WEARABLES_VENDOR_CLIENTS may still name others).
 */
export const SANDBOX_CLIENT: VendorCredentials = {
  clientId: "platform-sandbox",
  clientSecret: "sandbox-client-secret",
};

/** Providers without a cloud API: data comes from an SDK or a file (the anchor's names). */
const NO_CLOUD: Readonly<Record<string, string>> = {
  apple: "Apple Health",
  samsung: "Samsung Health",
  health_connect: "Health Connect",
};
const OTHER_NAMES: Readonly<Record<string, string>> = { sensorbio: "Sensor Bio" };

export interface ProviderRecord {
  provider: string;
  name: string;
  has_cloud_api: boolean;
  is_enabled: boolean;
  icon_url: string;
  live_sync_mode: "pull" | "webhook" | null;
  live_sync_configurable: boolean;
  data_granularity: "daily" | "hourly" | "raw" | null;
}

export interface VendorDirectory {
  adapter(provider: string): VendorAdapter | undefined;
  /** The OAuth client of a vendor, undefined when none is configured (the vendor is then disabled). */
  credentials(provider: string): VendorCredentials | undefined;
  urls(adapter: VendorAdapter): VendorUrls;
  pushSecrets(provider: string): PushSecrets | undefined;
  /** Headers of every data request of the vendor besides the bearer token (its configured application key). */
  apiHeaders(adapter: VendorAdapter): Record<string, string>;
  /** The anchor's provider records, in its order, then the sandbox. */
  providers(): ProviderRecord[];
}

export interface CreateVendorDirectoryParameters {
  config: Pick<
    Config,
    | "wearablesVendorClients"
    | "wearablesVendorPushSecrets"
    | "wearablesVendorOrigins"
    | "wearablesVendorApiKeys"
    | "wearablesSandbox"
  >;
  /** Where the sandbox's cloud listens (it has no public origin of its own). */
  sandboxOrigin: () => string;
  adapters?: readonly VendorAdapter[];
}

export function createVendorDirectory({
  config,
  sandboxOrigin,
  adapters = VENDOR_ADAPTERS,
}: CreateVendorDirectoryParameters): VendorDirectory {
  const byId = new Map(adapters.map((a) => [a.id, a]));
  if (!config.wearablesSandbox) byId.delete("sandbox");
  const credentials = (provider: string) =>
    config.wearablesVendorClients[provider] ??
    (provider === "sandbox" && byId.has("sandbox") ? SANDBOX_CLIENT : undefined);
  return {
    adapter: (provider) => byId.get(provider),
    credentials: (provider) => (byId.has(provider) ? credentials(provider) : undefined),
    urls: (adapter) =>
      resolveVendorUrls(adapter, {
        ...(adapter.id === "sandbox" ? { sandbox: sandboxOrigin() } : {}),
        ...config.wearablesVendorOrigins,
      }),
    apiHeaders(adapter) {
      const key = config.wearablesVendorApiKeys[adapter.id];
      return adapter.apiKeyHeader && key ? { [adapter.apiKeyHeader]: key } : {};
    },
    pushSecrets(provider) {
      const c = credentials(provider);
      if (!c) return undefined;
      const pushSecret = config.wearablesVendorPushSecrets[provider];
      return { clientSecret: c.clientSecret, ...(pushSecret ? { pushSecret } : {}) };
    },
    providers() {
      const names = PROVIDER_NAMES.filter(
        (p) => p !== "unknown" && p !== "internal" && (p !== "sandbox" || byId.has("sandbox")),
      );
      return names.map((provider) => {
        const adapter = byId.get(provider);
        return {
          provider,
          name: adapter?.name ?? NO_CLOUD[provider] ?? OTHER_NAMES[provider] ?? provider,
          has_cloud_api: !(provider in NO_CLOUD),
          // Apple Health data arrives by file import, which always works; a cloud vendor needs its client.
          is_enabled: provider === "apple" || (adapter !== undefined && credentials(provider) !== undefined),
          icon_url: `/static/provider-icons/${provider}.svg`,
          live_sync_mode: adapter?.liveSyncMode ?? null,
          live_sync_configurable: false,
          data_granularity: adapter?.dataGranularity ?? null,
        };
      });
    },
  };
}
