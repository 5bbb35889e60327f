/**
 * A vendor's URLs in effect: the adapter's (its cloud's) unless `WEARABLES_VENDOR_ORIGINS` names another origin
 * for the vendor, in which case each URL keeps its path on that origin (a stand-in, a proxy, a regional host).
 *
 * @example
 * resolveVendorUrls(strava, { strava: "http://127.0.0.1:9001" }).tokenUrl // "http://127.0.0.1:9001/oauth/token"
 */
import type { VendorAdapter, VendorUrls } from "./types.ts";

const onOrigin = (url: string, origin: string | undefined) => {
  if (!origin) return url;
  const u = new URL(url);
  const o = new URL(origin);
  // The origin may carry a path prefix (a proxy mounting several vendors): it goes before the vendor's path.
  return `${o.origin}${o.pathname.replace(/\/$/, "")}${u.pathname}${u.search}`;
};

export function resolveVendorUrls(adapter: VendorAdapter, origins: Readonly<Record<string, string>>): VendorUrls {
  const origin = origins[adapter.id];
  return {
    authorizeUrl: onOrigin(adapter.oauth.authorizeUrl, origin),
    tokenUrl: onOrigin(adapter.oauth.tokenUrl, origin),
    revokeUrl: adapter.oauth.revokeUrl ? onOrigin(adapter.oauth.revokeUrl, origin) : undefined,
    apiBase: onOrigin(adapter.apiBase, origin).replace(/\/$/, ""),
  };
}
