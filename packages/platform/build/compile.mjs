/**
 * The platform's sources are TypeScript. `platform` runs them as JavaScript that esbuild transformed file by
 * file (no bundling: the same layout, `.ts` specifiers rewritten to `.js`), kept under
 * `node_modules/.cache/platform-build/<key>/`, where the key names the sources' paths, sizes and modification
 * times: any change to a source makes a new key, built on the next run (about a second), so what runs is
 * always what the sources say, without a build command. Why not tsx's loader at run time, as tests do: on
 * Node 20 its hooks run in an isolate of their own, and with the transformed modules it holds it costs about
 * 60 MiB in every process and module thread (bench/README.md, "Reading the platform bench").
 *
 * `npm ci` builds it once (the root `prepare` script); `PLATFORM_TSX=1` runs the sources through tsx instead.
 *
 * @example
 * const dir = await ensureBuild(); // …/node_modules/.cache/platform-build/<key>
 * await import(pathToFileURL(join(dir, "packages/platform/src/cli.js")).href);
 */
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));
const packagesDir = join(repositoryRoot, "packages");
const cacheDir = join(repositoryRoot, "node_modules/.cache/platform-build");
/** Builds kept besides the current one (other processes may still be running them). */
const KEEP = 3;

/** Every file a build holds: the packages' files but their own node_modules and tests. */
function sourceFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "build") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith(".test.ts")) files.push(path);
    }
  };
  walk(packagesDir);
  return files.sort();
}

/** The build's key: a hash of every source's path, size and modification time (and of this file). */
export function buildKey(files = sourceFiles()) {
  const hash = createHash("sha256");
  for (const file of [...files, fileURLToPath(import.meta.url)]) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(repositoryRoot, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

/** `from "./x.ts"`, `import("../y.ts")`, `new URL("./z.ts", …)`, and package.json exports: `.ts` becomes `.js`. */
const relativeTsSpecifier = /(["'])(\.{1,2}\/[^"'\n]+?)\.ts\1/g;

async function build(files, out) {
  const { transform } = await import("esbuild");
  mkdirSync(join(out, "node_modules/@platform"), { recursive: true });
  await Promise.all(
    files.map(async (file) => {
      const target = join(out, relative(repositoryRoot, file));
      mkdirSync(dirname(target), { recursive: true });
      if (file.endsWith(".ts") && !file.endsWith(".d.ts")) {
        const { code } = await transform(readFileSync(file, "utf8"), {
          loader: "ts",
          format: "esm",
          target: "node20",
        });
        writeFileSync(target.replace(/\.ts$/, ".js"), code.replace(relativeTsSpecifier, "$1$2.js$1"));
      } else if (file.endsWith("package.json")) {
        writeFileSync(target, readFileSync(file, "utf8").replace(/\.ts"/g, '.js"'));
      } else cpSync(file, target);
    }),
  );
  for (const name of readdirSync(packagesDir)) {
    const own = join(packagesDir, name, "node_modules");
    if (existsSync(own)) symlinkSync(own, join(out, "packages", name, "node_modules"));
    symlinkSync(join("..", "..", "packages", name), join(out, "node_modules/@platform", name));
  }
}

/** Deletes all but the newest `KEEP` builds besides `current`. */
function prune(current) {
  const builds = readdirSync(cacheDir)
    .filter((name) => name !== current)
    .map((name) => ({ name, at: statSync(join(cacheDir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of builds.slice(KEEP)) rmSync(join(cacheDir, name), { recursive: true, force: true });
}

/**
 * The folder of the build of the sources as they are now, built first if it does not exist. Processes that
 * start together build side by side and the first rename wins: a build is never seen half written.
 */
export async function ensureBuild() {
  const files = sourceFiles();
  const key = buildKey(files);
  const dir = join(cacheDir, key);
  if (existsSync(join(dir, "node_modules"))) return dir;
  const temporary = `${dir}.${process.pid}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  try {
    await build(files, temporary);
    try {
      renameSync(temporary, dir);
    } catch (error) {
      if (!existsSync(join(dir, "node_modules"))) throw error;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  prune(key);
  return dir;
}

// `node packages/platform/build/compile.mjs` (the root `prepare` script): build now.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const dir = await ensureBuild();
  process.stdout.write(`platform: sources built in ${Date.now() - started} ms (${relative(repositoryRoot, dir)})\n`);
}
