/**
 * For the `precompiled` measurement only: the repository's TypeScript (packages/*, bench/platform, bench/lib)
 * transformed file by file by esbuild (tsx's own transformer; no bundling, same layout, `.ts` specifiers
 * rewritten to `.js`) into `node_modules/.cache/platform-bench-precompiled/`, with `@platform/*` linked there,
 * so that `platform start` and the probe run as plain JavaScript without the tsx loader: what a build step
 * would save. Nothing of the product uses it.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Builds the copy and answers its folder; `start.mjs` there runs the `platform` command. */
export function precompile(): string {
  const out = join(root, "node_modules/.cache/platform-bench-precompiled");
  rmSync(out, { recursive: true, force: true });
  const rewrite = (s: string) => s.replace(/(["'])(\.{1,2}\/[^"'\n]+?)\.ts\1/g, "$1$2.js$1");
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.name === "node_modules") continue;
      if (e.isDirectory()) {
        walk(p);
        continue;
      }
      const target = join(out, relative(root, p));
      mkdirSync(dirname(target), { recursive: true });
      if (p.endsWith(".ts") && !p.endsWith(".d.ts")) {
        const { code } = transformSync(readFileSync(p, "utf8"), { loader: "ts", format: "esm", target: "node20" });
        writeFileSync(target.replace(/\.ts$/, ".js"), rewrite(code));
      } else if (e.name === "package.json") writeFileSync(target, readFileSync(p, "utf8").replace(/\.ts"/g, '.js"'));
      else cpSync(p, target);
    }
  };
  const packages = readdirSync(join(root, "packages"));
  mkdirSync(join(out, "node_modules/@platform"), { recursive: true });
  for (const pkg of packages) {
    walk(join(root, "packages", pkg));
    const own = join(root, "packages", pkg, "node_modules");
    if (existsSync(own)) symlinkSync(own, join(out, "packages", pkg, "node_modules"));
    symlinkSync(join(out, "packages", pkg), join(out, "node_modules/@platform", pkg));
  }
  walk(join(root, "bench/platform"));
  walk(join(root, "bench/lib"));
  writeFileSync(join(out, "start.mjs"), 'await import("./packages/platform/src/cli.js");\n');
  return out;
}
