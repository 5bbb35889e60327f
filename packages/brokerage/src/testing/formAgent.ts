/**
 * A user agent without a browser for the OAuth flow tests: it keeps the authorization host's cookies, reads
 * the forms of its server-rendered pages (hidden fields, checked radio buttons, named buttons) and submits
 * them as a browser would, without following redirects on its own, so a test sees every `Location`.
 * The browser itself is covered by the playwright tests of the pages.
 */

export interface PageForm {
  action: string;
  method: string;
  /** Hidden fields and checked radio buttons, in document order. */
  fields: [string, string][];
  /** The values each radio group offers. */
  radios: Map<string, string[]>;
  /** Named submit buttons: name → values. */
  buttons: Map<string, string[]>;
  /** Names of the text, email and password fields to fill in. */
  inputs: string[];
}

export interface AgentResponse {
  url: URL;
  status: number;
  /** Where a 3xx points, resolved against the request's URL. */
  location: URL | undefined;
  headers: Headers;
  body: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The text of an HTML attribute value. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const hex = entity[1] === "x" || entity[1] === "X";
      return String.fromCodePoint(Number.parseInt(entity.slice(hex ? 2 : 1), hex ? 16 : 10));
    }
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of tag.matchAll(/([a-zA-Z_:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    found.set((m[1] as string).toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return found;
}

/** The forms of a page. */
export function parseForms(html: string): PageForm[] {
  const forms: PageForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const form = attributes(m[1] as string);
    const page: PageForm = {
      action: form.get("action") ?? "",
      method: (form.get("method") ?? "get").toLowerCase(),
      fields: [],
      radios: new Map(),
      buttons: new Map(),
      inputs: [],
    };
    for (const tag of (m[2] as string).matchAll(/<(input|button)\b([^>]*)>/gi)) {
      const a = attributes(tag[2] as string);
      const name = a.get("name");
      if (!name) continue;
      const value = a.get("value") ?? "";
      const type = (a.get("type") ?? (tag[1]?.toLowerCase() === "button" ? "submit" : "text")).toLowerCase();
      if (tag[1]?.toLowerCase() === "button" || type === "submit") {
        page.buttons.set(name, [...(page.buttons.get(name) ?? []), value]);
      } else if (type === "hidden") {
        page.fields.push([name, value]);
      } else if (type === "radio" || type === "checkbox") {
        page.radios.set(name, [...(page.radios.get(name) ?? []), value]);
        if (a.has("checked")) page.fields.push([name, value]);
      } else {
        page.inputs.push(name);
      }
    }
    forms.push(page);
  }
  return forms;
}

/** The body a browser sends for `form`: its fields, `fill` for inputs, `choose` over radio defaults, a button. */
export function formBody(
  form: PageForm,
  o: { fill?: Record<string, string>; choose?: Record<string, string>; button?: [string, string] } = {},
): URLSearchParams {
  const body = new URLSearchParams();
  const chosen = o.choose ?? {};
  for (const [name, value] of form.fields) if (!(name in chosen)) body.append(name, value);
  for (const [name, value] of Object.entries(chosen)) {
    if (!form.radios.get(name)?.includes(value)) throw new Error(`the form offers no ${name}=${value}`);
    body.append(name, value);
  }
  for (const name of form.inputs) body.append(name, o.fill?.[name] ?? "");
  if (o.button) body.append(o.button[0], o.button[1]);
  return body;
}

/** A cookie-keeping client of one site (the authorization host). */
export class FormAgent {
  readonly cookies = new Map<string, string>();

  async request(url: string | URL, init: { method?: string; form?: URLSearchParams } = {}): Promise<AgentResponse> {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(target, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      body: init.form?.toString(),
      redirect: "manual",
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1).trim());
    }
    const location = res.headers.get("location");
    return {
      url: target,
      status: res.status,
      location: location === null ? undefined : new URL(location, target),
      headers: res.headers,
      body: await res.text(),
    };
  }

  /** Submits the page's form whose action is `action`. */
  submit(page: AgentResponse, action: string, o: Parameters<typeof formBody>[1] = {}): Promise<AgentResponse> {
    const form = parseForms(page.body).find((f) => f.action === action);
    if (!form) throw new Error(`no form with action ${action} on ${page.url} (${page.status}):\n${page.body}`);
    return this.request(new URL(form.action, page.url), { form: formBody(form, o) });
  }
}

/** Where {@link throughAuthorizationPages} ended. */
export interface AuthorizationPagesResult {
  /** The redirect that left the authorization host (to the client), when there was one. */
  callback: URL | undefined;
  /** The last response of the authorization host. */
  last: AgentResponse;
}

/**
 * Opens `authorizeUrl` with `agent` and goes through the pages as a user does: the login form (with
 * `credentials`) and the consent form (`decision`, `choose` for the account radio buttons), until a redirect
 * leaves the authorization host or a page has no form to go on with.
 */
export async function throughAuthorizationPages(
  agent: FormAgent,
  authorizeUrl: URL,
  o: {
    credentials: { email: string; password: string };
    decision?: "allow" | "deny";
    choose?: Record<string, string>;
  },
): Promise<AuthorizationPagesResult> {
  let res = await agent.request(authorizeUrl);
  for (let step = 0; step < 8; step++) {
    if (res.location) {
      if (res.location.origin !== authorizeUrl.origin) return { callback: res.location, last: res };
      res = await agent.request(res.location);
      continue;
    }
    const actions = parseForms(res.body).map((f) => f.action);
    if (actions.includes("/login")) {
      res = await agent.submit(res, "/login", { fill: o.credentials });
    } else if (actions.includes("/oauth/authorize/consent") && res.status === 200) {
      res = await agent.submit(res, "/oauth/authorize/consent", {
        choose: o.choose,
        button: ["decision", o.decision ?? "allow"],
      });
    } else {
      return { callback: undefined, last: res };
    }
  }
  throw new Error("the authorization pages did not come to an end");
}
