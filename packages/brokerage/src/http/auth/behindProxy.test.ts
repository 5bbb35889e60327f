/**
 * The authorization host behind a trusted proxy (TRUST_PROXY=1, the test client at 127.0.0.1 being the
 * proxy): the login throttle counts the forwarded client address, and cookies are Secure when the proxy says
 * the request came over https. Without TRUST_PROXY, forged forwarding headers change neither.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedClient } from "../../services/clients.ts";
import { type AuthHost, BrowserSession, formFields, PASSWORD, startAuthHost } from "../../testing/authHost.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
let proxied: AuthHost;
let direct: AuthHost;
let proxiedClient: CreatedClient;
let directClient: CreatedClient;

beforeAll(async () => {
  proxied = await startAuthHost({ config: { trustProxy: 1 } });
  direct = await startAuthHost();
  proxiedClient = await proxied.services.clients.create({ name: "App", redirectUris: [REDIRECT] });
  directClient = await direct.services.clients.create({ name: "App", redirectUris: [REDIRECT] });
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
});

/** Logs in through the login page of an authorization request, every request with `headers`. */
async function login(host: AuthHost, client: CreatedClient, email: string, password: string, headers = {}) {
  const session = new BrowserSession(host.url);
  const q = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: REDIRECT });
  const page = await session.request(`/oauth/authorize?${q}`, { headers });
  expect(page.status).toBe(200);
  const fields = formFields(await page.text(), "/login");
  const response = await session.post("/login", [...fields, ["email", email], ["password", password]], headers);
  return { response, session };
}

describe("behind a trusted proxy", () => {
  it("the login throttle counts the forwarded address: 20 failures lock it, not the proxy's other clients", async () => {
    const user = await proxied.createUser();
    const from = { "x-forwarded-for": "203.0.113.7" };
    for (let i = 0; i < 20; i++) {
      const { response } = await login(proxied, proxiedClient, `nobody${i}@example.com`, "wrong", from);
      expect(response.status).toBe(422);
    }
    expect((await login(proxied, proxiedClient, user.email, PASSWORD, from)).response.status).toBe(429);
    const other = await login(proxied, proxiedClient, user.email, PASSWORD, { "x-forwarded-for": "203.0.113.8" });
    expect(other.response.status).toBe(303);
  });

  it("cookies are Secure when the proxy forwarded an https request", async () => {
    const user = await proxied.createUser();
    const https = { "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" };
    const { response, session } = await login(proxied, proxiedClient, user.email, PASSWORD, https);
    expect(response.status).toBe(303);
    expect(session.setCookies.length).toBeGreaterThan(0);
    for (const cookie of session.setCookies) expect(cookie).toMatch(/;\s*Secure/i);
  });
});

describe("without TRUST_PROXY", () => {
  it("forged X-Forwarded-Proto makes no cookie Secure", async () => {
    const user = await direct.createUser();
    const forged = { "x-forwarded-for": "203.0.113.10", "x-forwarded-proto": "https" };
    const { response, session } = await login(direct, directClient, user.email, PASSWORD, forged);
    expect(response.status).toBe(303);
    for (const cookie of session.setCookies) expect(cookie).not.toMatch(/;\s*Secure/i);
  });
});
