/**
 * The authorization pages in a real browser (Debian's chromium through playwright-core; `CHROMIUM_PATH`
 * overrides /usr/bin/chromium): login, consent and the redirect to a real callback server, driven with the
 * mouse and with the keyboard only; the consent choices per env; Deny; a forged CSRF token; framing blocked
 * by the CSP; login throttling.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CreatedClient } from "../../services/clients.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { type AuthHost, PASSWORD, startAuthHost } from "../../testing/authHost.ts";

let host: AuthHost;
let browser: Browser;
let callbackServer: Server;
let callbackOrigin: string;
/** Every request the application's callback received (path and query). */
const callbacks: URL[] = [];
let client: CreatedClient;
let user: UserWithAccounts;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  callbackServer = createServer((request, response) => {
    const url = new URL(request.url ?? "/", callbackOrigin);
    if (url.pathname === "/framing") {
      // A third-party page that tries to frame the authorization page (clickjacking).
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<!doctype html><iframe id="f" src="${url.searchParams.get("src")}"></iframe>`);
      return;
    }
    callbacks.push(url);
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>Callback</title><p>Application callback</p>");
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  callbackOrigin = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`;

  host = await startAuthHost();
  client = await host.services.clients.create({
    name: `Trading <img src=x onerror="alert(1)"> app`,
    redirectUris: [`${callbackOrigin}/callback`],
  });
  user = await host.createUser(2);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
});
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  // Fail fast rather than at the test's timeout (a blocked navigation just never arrives).
  page.setDefaultTimeout(10_000);
  callbacks.length = 0;
});
afterEach(() => context.close());

const authorizeUrl = (o: Record<string, string> = {}) =>
  `${host.url}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: `${callbackOrigin}/callback`,
    ...o,
  })}`;

async function signIn(email = user.email, password = PASSWORD) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Waits for the browser to arrive at the application's callback; returns its query. */
async function callbackQuery(): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(`${callbackOrigin}/callback`));
  return new URL(page.url()).searchParams;
}

const exchange = (code: string) =>
  host.services.tokens
    .exchangeCode({ code, clientId: client.client_id, redirectUri: `${callbackOrigin}/callback` })
    .then((grant) => host.services.tokens.verifyAccessToken(grant.access_token));

describe("in a browser", () => {
  it("login → consent → Allow → the callback gets a code and the exact state; the code buys a token", async () => {
    const state = "st&te = ü 😀";
    const response = await page.goto(authorizeUrl({ state, scope: "trading data" }));
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("Sign in");
    await signIn();
    await expect(page.getByRole("heading", { level: 1 })).toBeDefined();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      `Authorize Trading <img src=x onerror="alert(1)"> app`,
    );
    expect(await page.locator("img").count()).toBe(0);
    await page.getByRole("button", { name: "Allow" }).click();
    const query = await callbackQuery();
    expect(query.get("state")).toBe(state);
    expect(query.get("iss")).toBe(host.url);
    const token = await exchange(query.get("code") as string);
    expect(token).toMatchObject({
      userId: user.id,
      scopes: ["trading", "data"],
      liveAccountId: user.accounts[0]?.id,
      paperAccountId: user.accounts[1]?.id,
    });
  });

  it("works with the keyboard only: typing, Tab, arrow keys and Enter; picks the second paper account", async () => {
    await page.goto(authorizeUrl({ state: "keys", env: "paper" }));
    // The email field takes the focus on arrival (autofocus is applied once the page is rendered).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("email");
    await page.keyboard.type(user.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Allow" }).waitFor();
    expect(await page.title()).toMatch(/^Authorize /);
    // The first paper account has the focus and is selected; the arrow key selects the second.
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement).value))
      .toBe(user.accounts[1]?.id);
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).checked)).toBe(true);
    let focused = "";
    for (let i = 0; i < 5 && focused !== "Allow"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.textContent ?? "");
    }
    expect(focused).toBe("Allow");
    await page.keyboard.press("Enter");
    const query = await callbackQuery();
    expect(query.get("state")).toBe("keys");
    expect(await exchange(query.get("code") as string)).toMatchObject({
      liveAccountId: null,
      paperAccountId: user.accounts[2]?.id,
    });
  });

  it("offers only the live account for env=live, only the paper accounts for env=paper, both without env", async () => {
    await page.goto(authorizeUrl({ env: "live" }));
    await signIn();
    const radios = (name: string) => page.locator(`input[type=radio][name=${name}]`);
    expect(await radios("live_account").count()).toBe(1);
    expect(await radios("paper_account").count()).toBe(0);
    expect(await page.textContent("main")).toContain(user.accounts[0]?.account_number);

    await page.goto(authorizeUrl({ env: "paper" }));
    expect(await radios("live_account").count()).toBe(0);
    expect(await radios("paper_account").count()).toBe(2);
    expect(await radios("paper_account").nth(0).isChecked()).toBe(true);
    expect(await page.textContent("main")).not.toContain(user.accounts[0]?.account_number);

    await page.goto(authorizeUrl());
    expect(await radios("live_account").count()).toBe(1);
    expect(await radios("paper_account").count()).toBe(2);
    // A user with two paper accounts picks the second one (by its label).
    await page.getByText(user.accounts[2]?.account_number as string).click();
    await page.getByRole("button", { name: "Allow" }).click();
    const query = await callbackQuery();
    expect(await exchange(query.get("code") as string)).toMatchObject({
      liveAccountId: user.accounts[0]?.id,
      paperAccountId: user.accounts[2]?.id,
    });
  });

  it("Deny → the callback gets error=access_denied with the state", async () => {
    await page.goto(authorizeUrl({ state: "no thanks" }));
    await signIn();
    await page.getByRole("button", { name: "Deny" }).click();
    const query = await callbackQuery();
    expect(query.get("error")).toBe("access_denied");
    expect(query.get("state")).toBe("no thanks");
    expect(query.has("code")).toBe(false);
  });

  it("sends the CSP with frame-ancestors 'none': another site cannot frame the pages", async () => {
    const response = await page.goto(authorizeUrl());
    const headers = response?.headers() ?? {};
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"]).toContain(`form-action 'self' ${callbackOrigin}`);
    expect(headers["x-frame-options"]).toBe("DENY");

    const blocked = new Promise<void>((resolve) =>
      page.on("console", (m) => m.text().includes("frame-ancestors") && resolve()),
    );
    await page.goto(`${callbackOrigin}/framing?src=${encodeURIComponent(authorizeUrl())}`);
    await blocked;
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // The refused frame shows Chrome's error page, not the login form.
    expect(await frame?.locator("#email").count()).toBe(0);
  });

  it("a consent form with a wrong or missing CSRF token is refused with a page: no redirect, no code", async () => {
    await page.goto(authorizeUrl({ state: "forged" }));
    await signIn();
    await page
      .locator('form[action="/oauth/authorize/consent"] input[name=csrf_token]')
      .evaluate((input: HTMLInputElement) => {
        input.value = "A".repeat(43);
      });
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/oauth/authorize/consent")),
      page.getByRole("button", { name: "Allow" }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(page.url()).toBe(`${host.url}/oauth/authorize/consent`);
    expect(await page.textContent("h1")).toBe("Authorization refused");

    await page.goto(authorizeUrl({ state: "forged" }));
    await page
      .locator('form[action="/oauth/authorize/consent"] input[name=csrf_token]')
      .evaluate((input) => input.remove());
    const [missing] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/oauth/authorize/consent")),
      page.getByRole("button", { name: "Allow" }).click(),
    ]);
    expect(missing.status()).toBe(400);
    expect(callbacks).toHaveLength(0);
  });

  it("throttles failed logins: after 5 failures the right password is refused too", async () => {
    const victim = await host.createUser();
    await page.goto(authorizeUrl());
    for (let i = 0; i < 5; i++) {
      await signIn(victim.email, `wrong password ${i}`);
      expect(await page.getByRole("alert").textContent()).toBe("Incorrect email or password.");
    }
    const [throttled] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/login")),
      signIn(victim.email, PASSWORD),
    ]);
    expect(throttled.status()).toBe(429);
    expect(await page.getByRole("alert").textContent()).toContain("Too many failed sign-in attempts");
  });
});
