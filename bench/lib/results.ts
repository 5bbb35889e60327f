import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

/** Writes `bench/results/<name>.json` with the machine it ran on. */
export function writeResults(name: string, results: unknown) {
  const dir = fileURLToPath(new URL("../results", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/${name}.json`;
  const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model };
  writeFileSync(file, `${JSON.stringify({ name, at: new Date().toISOString(), machine, results }, null, 2)}\n`);
  return file;
}
