/**
 * Calls `stop(reason)` once when this process is asked to stop: SIGINT (Ctrl-C), SIGTERM (`kill`, process
 * managers), SIGHUP (its terminal went away), or its parent process ended. The last matters under `npm start`:
 * npm passes SIGTERM to the shell that runs the script, the shell dies without passing it on, and the process
 * would go on under init with its servers and children, seen by no one. Node cannot ask the kernel for a
 * signal on its parent's death (prctl PR_SET_PDEATHSIG), so it watches `process.ppid`, which changes when
 * the process is adopted by init or a subreaper. A second request while stopping exits at once with 1, unless
 * it comes within a second of the first: one signal is often delivered twice, to the process and to its
 * process group (`timeout`, process managers), and that is one request.
 */
export interface StopRequestsParameters {
  /** How often the parent is checked. */
  parentPollMs?: number;
  /** Told about a second request, just before the process exits at once. */
  onForcedExit?: (reason: string) => void;
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** A request this soon after the first is the same one delivered again. */
const REPEAT_MS = 1000;

/** Watches for stop requests until the returned function is called. */
export function onStopRequest(
  stop: (reason: string) => void | Promise<void>,
  { parentPollMs = 500, onForcedExit }: StopRequestsParameters = {},
): () => void {
  let stoppingSince: number | undefined;
  const request = (reason: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < REPEAT_MS) return;
      onForcedExit?.(reason);
      process.exit(1);
    }
    stoppingSince = performance.now();
    clearInterval(parentWatch);
    void stop(reason);
  };
  const handlers = SIGNALS.map((signal) => [signal, () => request(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const parent = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parent) request(`parent process ${parent} exited`);
  }, parentPollMs);
  parentWatch.unref();
  return () => {
    clearInterval(parentWatch);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
