/**
 * Test fixture of the authorization host's page tests: the brokerage service started as `platform start`
 * starts it (every host on an ephemeral port, a fresh database), with helpers to create users and clients and
 * a small HTTP client that keeps cookies and does not follow redirects, as a browser session would.
 */
import type { Config } from "@platform/kernel";
import { startTestService } from "@platform/kernel/testing";
import { brokerageService } from "../index.ts";
import type { BrokerageServices } from "../services/index.ts";
import type { UserWithAccounts } from "../store/usersRepository.ts";
import { parseForms } from "./formAgent.ts";

export const PASSWORD = "correct horse battery staple";

export interface AuthHost {
  /** Origin of the authorization host. */
  url: string;
  services: BrokerageServices;
  /** A user with one live and `paperAccounts` paper accounts, whose password is {@link PASSWORD}. */
  createUser(paperAccounts?: number): Promise<UserWithAccounts>;
  close(): Promise<void>;
}

export async function startAuthHost({ config = {} }: { config?: Partial<Config> } = {}): Promise<AuthHost> {
  const s = await startTestService(brokerageService, { config });
  const { services } = s.instance;
  let users = 0;
  return {
    url: s.urls.auth as string,
    services,
    createUser: (paperAccounts = 1) =>
      services.users.create({
        email: `user${++users}-${Date.now()}@example.com`,
        password: PASSWORD,
        paperAccounts,
        startingCash: "100000",
      }),
    close: () => s.close(),
  };
}

/** A browser-like HTTP session: cookies kept (name → value), redirects returned, not followed. */
export class BrowserSession {
  readonly cookies = new Map<string, string>();
  /** Every `Set-Cookie` header received, as sent. */
  readonly setCookies: string[] = [];

  constructor(readonly origin: string) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const response = await fetch(new URL(path, this.origin), { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      this.setCookies.push(cookie);
      const [pair = "", ...attributes] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || attributes.some((a) => a.trim().toLowerCase() === "max-age=0")) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  get = (path: string) => this.request(path);

  /** POSTs a form (`fields` in order; repeat a name to repeat a field). */
  post = (path: string, fields: [string, string][] | Record<string, string>, headers: Record<string, string> = {}) =>
    this.request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
}

/** The fields a browser sends unchanged from the page's form posting to `action` (hidden fields, checked radios). */
export function formFields(page: string, action: string): [string, string][] {
  const form = parseForms(page).find((f) => f.action === action);
  if (!form) throw new Error(`no form posting to ${action}`);
  return form.fields;
}
