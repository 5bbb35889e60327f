/**
 * Test fixture of the authorization host's page tests: the brokerage service started as `platform start`
 * starts it (every host on an ephemeral port, a fresh database), with helpers to create users and clients and
 * a small HTTP client that keeps cookies and does not follow redirects, as a browser session would.
 */
import { createHttpServer, createLogger, createMemoryRateCounter } from "@platform/kernel";
import { registerApplicationsPage } from "../http/auth/applications.ts";
import { registerAuthorizationPages } from "../http/auth/authorize.ts";
import { createAuthorizationService } from "../services/authorization.ts";
import { createClientsService } from "../services/clients.ts";
import { createCodesService } from "../services/codes.ts";
import { createLoginThrottle } from "../services/loginThrottle.ts";
import { createSessionsService } from "../services/sessions.ts";
import { createTokensService } from "../services/tokens.ts";
import { createUsersService } from "../services/users.ts";
import { createAccessTokensRepository } from "../store/accessTokensRepository.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import { createAuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";
import { createClientsRepository } from "../store/clientsRepository.ts";
import { createSessionsRepository } from "../store/sessionsRepository.ts";
import { createUsersRepository, type UserWithAccounts } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "./brokerageDatabase.ts";
import { parseForms } from "./formAgent.ts";

export const PASSWORD = "correct horse battery staple";

// TEMPORARY wiring until services/index.ts exists: then startTestService(brokerageService).
async function createServices(db: Awaited<ReturnType<typeof createBrokerageTestDatabase>>["db"]) {
  const codesRepository = createAuthorizationCodesRepository(db);
  const clients = createClientsService({ clients: createClientsRepository(db) });
  const codes = createCodesService({ codes: codesRepository });
  const counter = createMemoryRateCounter();
  return {
    counter,
    services: {
      users: createUsersService({ users: createUsersRepository(db) }),
      clients,
      codes,
      tokens: createTokensService({ codes: codesRepository, tokens: createAccessTokensRepository(db) }),
      sessions: createSessionsService({ sessions: createSessionsRepository(db) }),
      loginThrottle: createLoginThrottle({ counter }),
      authorization: createAuthorizationService({ clients, accounts: createAccountsRepository(db), codes }),
    },
  };
}

export interface AuthHost {
  /** Origin of the authorization host. */
  url: string;
  services: Awaited<ReturnType<typeof createServices>>["services"];
  /** A user with one live and `paperAccounts` paper accounts, whose password is {@link PASSWORD}. */
  createUser(paperAccounts?: number): Promise<UserWithAccounts>;
  close(): Promise<void>;
}

export async function startAuthHost({
  config = {},
}: {
  config?: { brokerageAuthUrl?: string };
} = {}): Promise<AuthHost> {
  const database = await createBrokerageTestDatabase();
  const { services, counter } = await createServices(database.db);
  const app = await createHttpServer({
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    bodyLimit: 1_048_576,
    formatError: (error) => ({
      statusCode: error.statusCode,
      body: { error: "invalid_request", error_description: error.message },
    }),
    openapi: { title: "auth", version: "1", description: "auth" },
  });
  let url = "";
  const deps = { services, urls: { issuer: () => config.brokerageAuthUrl ?? url } };
  registerAuthorizationPages(app, deps);
  registerApplicationsPage(app, deps);
  await app.listen({ host: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  let users = 0;
  return {
    url,
    services,
    createUser: (paperAccounts = 1) =>
      services.users.create({
        email: `user${++users}-${Date.now()}@example.com`,
        password: PASSWORD,
        paperAccounts,
        startingCash: "100000",
      }),
    async close() {
      await app.close();
      await counter.close();
      await database.drop();
    },
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
