/**
 * CPU seconds used since a meter was created: by this process, by every running process of some
 * names (anvil, postgres: the other programs a benchmark drives), and by the whole machine. Linux
 * `/proc` only; NaN elsewhere. On a 2-core machine these say which program a benchmark waits for, and
 * whether the machine itself was the limit (machine CPU ≈ 2 × wall time).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Busy time of the whole machine (user, nice, system, irq, softirq of /proc/stat's first line), in seconds. */
function machineSeconds(): number {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0)) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of every live process whose command name is `name` (exited processes are not counted). */
function processSeconds(name: string): number {
  let ticks = 0;
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== name) continue;
      const fields = stat.slice(close + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    }
  } catch {
    return Number.NaN;
  }
  return ticks / 100;
}

/** Seconds to 0.01 s. */
export const round2 = (x: number) => Math.round(x * 100) / 100;

/** Starts a meter; `read()` gives CPU seconds since then, rounded to 0.01 s. */
export function cpuMeter(names: readonly string[] = []) {
  const m0 = machineSeconds();
  const p0 = process.cpuUsage();
  const n0 = names.map(processSeconds);
  return {
    read(): Record<string, number> {
      const p = process.cpuUsage(p0);
      const out: Record<string, number> = { thisProcess: round2((p.user + p.system) / 1e6) };
      names.forEach((name, k) => {
        out[name] = round2(processSeconds(name) - (n0[k] as number));
      });
      out.machine = round2(machineSeconds() - m0);
      return out;
    },
  };
}
