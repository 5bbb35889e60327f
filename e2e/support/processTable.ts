/**
 * The processes of this machine as Linux's /proc shows them, for tests that check what a process leaves
 * behind: whether a pid still runs, and which processes a pid started.
 */
import { readdirSync, readFileSync } from "node:fs";

interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The executable's name (`anvil`, `node`, `sh`). */
  comm: string;
  state: string;
}

function entry(pid: string): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), ppid: Number(ppid), comm, state: state as string };
  } catch {
    return undefined; // it ended while we looked
  }
}

/** True while `pid` runs (a zombie, dead but not yet reaped, does not). */
export function isRunning(pid: number): boolean {
  const e = entry(String(pid));
  return e !== undefined && e.state !== "Z";
}

/** The running children of `pid` whose executable is `comm`. */
export function childrenOf(pid: number, comm: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(entry)
    .filter((e): e is ProcessEntry => e !== undefined && e.ppid === pid && e.comm === comm && e.state !== "Z")
    .map((e) => e.pid);
}
