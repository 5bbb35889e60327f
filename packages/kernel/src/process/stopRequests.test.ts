import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * A process (`sh`) that starts a node process watching for stop requests and prints its pid; the node process
 * prints the reason it was asked to stop and exits.
 */
function startWatched(env: Record<string, string> = {}) {
  const module = pathToFileURL(fileURLToPath(new URL("./stopRequests.ts", import.meta.url))).href;
  const code = `
    const { onStopRequest } = await import(${JSON.stringify(module)});
    const stop = process.env.SLOW_STOP
      ? (reason) => { console.log("STOP " + reason); setTimeout(() => process.exit(0), 3000); }
      : (reason) => { console.log("STOP " + reason); process.exit(0); };
    onStopRequest(stop, { parentPollMs: 50, onForcedExit: (reason) => console.log("FORCED " + reason) });
    console.log("WATCHING " + process.pid);
    setInterval(() => {}, 1000);`;
  // The shell waits for node (no exec), so that node's parent can die before node does.
  const parent = spawn(
    "sh",
    ["-c", '"$0" --import tsx --input-type=module -e "$1"; echo done', process.execPath, code],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } },
  );
  let out = "";
  parent.stdout.on("data", (d: Buffer) => {
    out += d;
  });
  const watching = new Promise<number>((resolve) => {
    const timer = setInterval(() => {
      const m = /WATCHING (\d+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(Number(m[1]));
      }
    }, 10);
  });
  return { parent, watching, output: () => out };
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

async function waitUntil(cond: () => boolean, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

describe("onStopRequest", () => {
  it("stops on SIGHUP and on SIGTERM", async () => {
    for (const signal of ["SIGHUP", "SIGTERM"] as const) {
      const { parent, watching, output } = startWatched();
      const pid = await watching;
      process.kill(pid, signal);
      await new Promise((resolve) => parent.once("exit", resolve));
      expect(output()).toContain(`STOP ${signal}`);
    }
  });

  it("takes a second signal within a second as the same request, and a later one as the order to exit now", async () => {
    const { parent, watching, output } = startWatched({ SLOW_STOP: "1" });
    const pid = await watching;
    process.kill(pid, "SIGTERM");
    await waitUntil(() => output().includes("STOP SIGTERM"), 5000);
    // The same stop reaching it another way (its process group), well within the second.
    process.kill(pid, "SIGHUP");
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(output()).not.toContain("FORCED");
    process.kill(pid, "SIGINT");
    await new Promise((resolve) => parent.once("exit", resolve));
    expect(output()).toContain("FORCED SIGINT");
  });

  it("stops when its parent process dies (SIGKILL: it has no chance to pass anything on)", async () => {
    const { parent, watching } = startWatched();
    const pid = await watching;
    parent.kill("SIGKILL");
    expect(await waitUntil(() => gone(pid), 10_000)).toBe(true);
  });
});
