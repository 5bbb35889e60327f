/**
 * `npm run bench [name...]`: runs each benchmark's `bench/<name>/run.ts` in turn (all by default).
 * Every benchmark measures its own baseline in the same run and writes `bench/results/<name>.json`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const all = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`${dir}${d.name}/run.ts`))
  .map((d) => d.name);
const names = process.argv.slice(2).length ? process.argv.slice(2) : all;
let failed = 0;
for (const name of names) {
  if (!all.includes(name)) {
    process.stderr.write(`unknown benchmark "${name}"; one of: ${all.join(", ")}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n=== bench ${name}\n`);
  const r = spawnSync(process.execPath, [`${dir}../node_modules/tsx/dist/cli.mjs`, `${dir}${name}/run.ts`], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
