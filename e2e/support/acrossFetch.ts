/**
 * The app-sdk has no base-URL option and 0.4.4 sends no API key, so (as its own tests do with msw) the global
 * fetch is wrapped: Across' API and indexer hosts are rewritten to our server and our Bearer key is added.
 * Returns the original fetch and a function that restores it.
 */
export function routeAcrossFetchTo(serviceUrl: string, apiKey: string) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const rewritten = url
      .replace(/^https:\/\/app\.across\.to\/api/, `${serviceUrl}/api`)
      .replace(/^https:\/\/indexer\.api\.across\.to/, `${serviceUrl}/api`);
    if (rewritten === url) return realFetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${apiKey}`);
    return realFetch(rewritten, { ...init, headers });
  };
  return {
    realFetch,
    restore: () => {
      globalThis.fetch = realFetch;
    },
  };
}
