/**
 * The authorization host's pages, rendered on the server: one layout, plain forms, no script (the
 * Content-Security-Policy allows none). Built for keyboard and screen-reader use: `<html lang>`, a label for
 * every field, the first field focused, messages in `role="alert"`/`role="status"` regions, buttons in tab
 * order, visible focus, Enter submits.
 */
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { READ_ONLY_DESCRIPTION, SCOPE_DESCRIPTIONS, type Scope } from "../../domain/scopes.ts";
import type { AccountOffer } from "../../services/authorization.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { CSRF_FIELD } from "./csrf.ts";
import { html, type SafeHtml } from "./html.ts";

/** Where the login form continues: the authorization request it carries, or the applications page. */
export type LoginNext = "authorize" | "applications";

// A template without interpolations: constant markup.
const STYLE = html`
  :root { color-scheme: light dark; --accent: #0b57d0; --muted: #5f6368; --line: #dadce0; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: Canvas; color: CanvasText; }
  main { max-width: 30rem; margin: 3rem auto; padding: 2rem; border: 1px solid var(--line); border-radius: 12px; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  p, ul, fieldset { margin: 0 0 1rem; }
  .muted { color: var(--muted); font-size: .9rem; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input[type=email], input[type=password] { width: 100%; padding: .6rem; font: inherit; border: 1px solid var(--muted); border-radius: 6px; margin-bottom: 1rem; }
  fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  fieldset label { font-weight: 400; display: flex; gap: .5rem; align-items: baseline; margin: .25rem 0; }
  .actions { display: flex; gap: .75rem; flex-wrap: wrap; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: 6px; border: 1px solid var(--accent); cursor: pointer; }
  button.primary { background: var(--accent); color: #fff; }
  button.secondary { background: transparent; color: inherit; border-color: var(--muted); }
  button.link { border: none; background: none; color: var(--accent); padding: 0; text-decoration: underline; }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .alert { border-left: 4px solid #d93025; padding: .5rem .75rem; background: rgba(217, 48, 37, .08); }
  .apps { list-style: none; padding: 0; }
  .apps li { border-top: 1px solid var(--line); padding: 1rem 0; }
`;

/** A whole document around `body`. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.toString();
}

const hiddenFields = (fields: readonly (readonly [string, string])[]) =>
  fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);

const alert = (message: string | undefined) => message && html`<p class="alert" role="alert">${message}</p>`;

export interface LoginPageParameters {
  /** The application the user signs in for, when the login continues an authorization request. */
  appName?: string | undefined;
  next: LoginNext;
  /** The authorization request's parameters, carried as hidden fields. */
  carried: readonly (readonly [string, string])[];
  csrfToken: string;
  /** The email typed before, kept when the page comes back with an error. */
  email?: string | undefined;
  error?: string | undefined;
}

export function loginPage(p: LoginPageParameters): string {
  return layout(
    "Sign in",
    html`<h1>Sign in</h1>
${p.appName ? html`<p>Sign in to your brokerage account to continue to <strong>${p.appName}</strong>.</p>` : html`<p>Sign in to your brokerage account.</p>`}
${alert(p.error)}
<form method="post" action="/login">
<input type="hidden" name="${CSRF_FIELD}" value="${p.csrfToken}">
<input type="hidden" name="next" value="${p.next}">
${hiddenFields(p.carried)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" autofocus value="${p.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>`,
  );
}

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

function accountLabel(account: AccountRow) {
  const kind = account.env === "live" ? "Live account" : "Paper account";
  return html`${kind} <strong>${account.account_number}</strong> <span class="muted">${money.format(Number(account.cash))} cash</span>`;
}

function accountChoices(
  legend: string,
  field: "live_account" | "paper_account",
  accounts: readonly AccountRow[],
  focusFirst: boolean,
) {
  return html`<fieldset>
<legend>${legend}</legend>
${accounts.map(
  (account, i) =>
    html`<label><input type="radio" name="${field}" value="${account.id}" required${i === 0 ? html` checked` : ""}${i === 0 && focusFirst ? html` autofocus` : ""}> ${accountLabel(account)}</label>`,
)}
</fieldset>`;
}

export interface ConsentPageParameters {
  appName: string;
  scopes: readonly Scope[];
  offer: AccountOffer;
  carried: readonly (readonly [string, string])[];
  csrfToken: string;
  logoutCsrfToken: string;
  userEmail: string;
}

/** What the request asks that the user cannot give (no active account of a requested env). */
function missingAccounts(offer: AccountOffer): AccountEnv[] {
  const missing: AccountEnv[] = [];
  if (offer.wantsLive && !offer.live) missing.push("live");
  if (offer.wantsPaper && offer.paper.length === 0) missing.push("paper");
  return missing;
}

export function consentPage(p: ConsentPageParameters): string {
  const { offer } = p;
  const missing = missingAccounts(offer);
  const scopeItems = [READ_ONLY_DESCRIPTION, ...p.scopes.map((s) => SCOPE_DESCRIPTIONS[s])];
  const accountsLegend =
    offer.wantsLive && offer.wantsPaper
      ? "one live and one paper account"
      : offer.wantsLive
        ? "your live account"
        : "one paper account";
  return layout(
    `Authorize ${p.appName}`,
    html`<h1>Authorize <strong>${p.appName}</strong></h1>
<p><strong>${p.appName}</strong> asks for access to ${accountsLegend}. It will be able to:</p>
<ul>${scopeItems.map((item) => html`<li>${item}</li>`)}</ul>
<form method="post" action="/oauth/authorize/consent">
<input type="hidden" name="${CSRF_FIELD}" value="${p.csrfToken}">
${hiddenFields(p.carried)}
${offer.live && accountChoices("Live account", "live_account", [offer.live], true)}
${offer.paper.length > 0 && accountChoices(offer.paper.length > 1 ? "Paper account (choose one)" : "Paper account", "paper_account", offer.paper, !offer.live)}
${missing.length > 0 && alert(`You have no active ${missing.join(" or ")} account to connect; you can only deny this request.`)}
<div class="actions">
${missing.length === 0 && html`<button type="submit" name="decision" value="allow" class="primary">Allow</button>`}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
${signedInAs(p.userEmail, p.logoutCsrfToken, p.carried)}`,
  );
}

function signedInAs(email: string, logoutCsrfToken: string, carried: readonly (readonly [string, string])[] = []) {
  return html`<form method="post" action="/logout" class="muted">
<input type="hidden" name="${CSRF_FIELD}" value="${logoutCsrfToken}">
${hiddenFields(carried)}
Signed in as <strong>${email}</strong>. <button type="submit" class="link">Not you? Sign out</button>
</form>`;
}

export interface AuthorizedAppView {
  clientId: string;
  name: string;
  scopes: readonly Scope[];
  accounts: readonly { env: AccountEnv; account_number: string }[];
  authorizedAt: Date;
  /** The CSRF token of its Revoke button. */
  revokeCsrfToken: string;
}

export function applicationsPage(p: {
  userEmail: string;
  apps: readonly AuthorizedAppView[];
  logoutCsrfToken: string;
}): string {
  const items = p.apps.map(
    (app) => html`<li>
<h2>${app.name}</h2>
<p class="muted">Authorized on ${app.authorizedAt.toISOString().slice(0, 10)}; accounts: ${app.accounts
      .map((a) => `${a.env} ${a.account_number}`)
      .join(", ")}</p>
<ul>${[READ_ONLY_DESCRIPTION, ...app.scopes.map((s) => SCOPE_DESCRIPTIONS[s])].map((item) => html`<li>${item}</li>`)}</ul>
<form method="post" action="/account/applications/revoke">
<input type="hidden" name="${CSRF_FIELD}" value="${app.revokeCsrfToken}">
<input type="hidden" name="client_id" value="${app.clientId}">
<button type="submit" class="secondary" aria-label="Revoke access for ${app.name}">Revoke access</button>
</form>
</li>`,
  );
  return layout(
    "Authorized applications",
    html`<h1>Authorized applications</h1>
${
  items.length > 0
    ? html`<p>These applications can use your brokerage accounts. Revoking one ends its access at once.</p><ul class="apps">${items}</ul>`
    : html`<p role="status">You have not authorized any application.</p>`
}
${signedInAs(p.userEmail, p.logoutCsrfToken)}`,
  );
}

/** An error the user sees instead of being sent anywhere (RFC 6749 §4.1.2.1: never redirect to an unproven URI). */
export function errorPage(title: string, message: string): string {
  return layout(
    title,
    html`<h1>${title}</h1>
<p role="alert">${message}</p>
<p class="muted">Go back to the application and start again. If this keeps happening, contact its developer.</p>`,
  );
}
