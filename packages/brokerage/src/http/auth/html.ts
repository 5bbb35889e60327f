/**
 * HTML built with a tagged template that escapes every interpolation: the only way to put markup into a
 * page is another `html` template (a `SafeHtml`), so text from users, clients or requests (an application's
 * name, an email, a `state`) can never become markup.
 *
 * @example
 * html`<p>Hello ${name}</p>`;            // name "<b>" → "<p>Hello &lt;b&gt;</p>"
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`;
 */

/** Markup that is safe to send as it is (built by `html`, never from a plain string). */
export class SafeHtml {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/** What an interpolation may be: `false`, `null` and `undefined` render nothing (for `${cond && html`…`}`). */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text as HTML text or attribute value (quoted attributes only: every attribute in our pages is quoted). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`]/g, (c) => ENTITIES[c] as string);

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === false || value === null || value === undefined) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] as string);
  });
  return new SafeHtml(out);
}
