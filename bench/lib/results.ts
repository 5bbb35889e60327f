import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

/**
 * Writes `bench/results/<name>.json` with the machine it ran on. The parts measured now replace their
 * earlier values and the other parts are kept, so running a subset (`BENCH_PARTS`) loses nothing; each
 * part records when it was measured.
 */
export function writeResults(name: string, results: Record<string, unknown>) {
  const dir = fileURLToPath(new URL("../results", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/${name}.json`;
  const at = new Date().toISOString();
  let previous: Record<string, unknown> = {};
  try {
    if (existsSync(file))
      previous = (JSON.parse(readFileSync(file, "utf8")) as { results?: Record<string, unknown> }).results ?? {};
  } catch {
    previous = {};
  }
  const stamped = Object.fromEntries(
    Object.entries(results).map(([k, v]) => [k, v && typeof v === "object" && !Array.isArray(v) ? { ...v, at } : v]),
  );
  const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model };
  writeFileSync(file, `${JSON.stringify({ name, at, machine, results: { ...previous, ...stamped } }, null, 2)}\n`);
  return file;
}
