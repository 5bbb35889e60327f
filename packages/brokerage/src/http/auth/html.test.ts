import { describe, expect, it } from "vitest";
import { escapeHtml, html, SafeHtml } from "./html.ts";

describe("html", () => {
  it("escapes every interpolated string, in text and in attributes", () => {
    const evil = `<script>alert("x")</script>' onmouseover='y' \`z\` & more`;
    const out = html`<p title="${evil}">${evil}</p>`.toString();
    expect(out).not.toContain("<script>");
    expect(out).not.toMatch(/"[^"]*" onmouseover/);
    expect(out).toBe(
      `<p title="${escapeHtml(evil)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;y&#39; &#96;z&#96; &amp; more</p>`,
    );
  });

  it("keeps nested templates as markup, escapes arrays element by element, renders nothing for false/null/undefined", () => {
    const items = ["a<b", html`<em>${"c&d"}</em>`];
    const out = html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${false}${null}${undefined}${0}`.toString();
    expect(out).toBe("<ul><li>a&lt;b</li><li><em>c&amp;d</em></li></ul>0");
  });

  it("a plain string never passes for markup, whatever it contains", () => {
    const pretending = { toString: () => "<b>" } as unknown as string;
    expect(html`${pretending}`.toString()).toBe("&lt;b&gt;");
    expect(html`x` instanceof SafeHtml).toBe(true);
  });
});
