/**
 * An exclusive lock on a folder (the embedded database's, the devnet's), held by one process from
 * `lockFolder()` until `release()` or until the process ends in any way, SIGKILL and crashes included.
 *
 * The lock is a listening Unix socket in Linux's abstract namespace, named after the folder's real path.
 * Binding a name is atomic (a second bind fails with EADDRINUSE) and the kernel frees the name when the
 * last descriptor closes, which it does for a dead process: there is no stale lock to detect and take
 * over, so no pid reuse to guard against and no race between two processes that both found it stale.
 * Node 20 has no `flock()` without a native module; a pid file would need exactly that liveness guessing.
 * The socket also tells who holds it: a client that connects reads the holder as one line of JSON.
 * Elsewhere than Linux (no abstract namespace) the socket is a file in the folder, and a file nobody
 * answers on is taken over as stale (racy between two starters; Linux is what this runs on).
 * The abstract namespace belongs to a network namespace: processes in two containers that share a
 * volume but not a network namespace do not see each other's locks.
 */
import { createHash } from "node:crypto";
import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

/** Who holds a folder's lock, as the holder describes itself. */
export interface FolderLockHolder {
  pid: number;
  /** The command that holds it, e.g. `platform start`. */
  command: string;
  /** True when the holder serves the admin socket (a platform): others reach the folder through it. */
  servesAdmin: boolean;
}

export interface FolderLock {
  readonly folder: string;
  /** Frees the lock; call it after the folder's last file is closed. */
  release(): Promise<void>;
}

/** The folder is locked by another process (`holder` when it answered). */
export class FolderLockedError extends Error {
  override name = "FolderLockedError" as const;
  constructor(
    readonly folder: string,
    readonly holder: FolderLockHolder | undefined,
  ) {
    super(
      `${folder} is in use by ${holder ? `\`${holder.command}\` (pid ${holder.pid})` : "another process"}: ` +
        "it has one owner at a time",
    );
  }
}
export type FolderLockedErrorType = FolderLockedError;

const abstractNamespace = process.platform === "linux";

/** The socket name of `folder`'s lock (created if missing, so that its real path exists). */
function lockAddress(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const real = realpathSync(folder);
  if (!abstractNamespace) return join(real, ".lock.sock");
  return `\0platform-folder-lock/${createHash("sha256").update(real).digest("hex").slice(0, 48)}`;
}

/**
 * The lock's socket is served by a thread of its own: the main thread can be busy for seconds (PGlite's
 * first start runs initdb in WebAssembly on it), and a process asking who holds the lock must still be
 * told at once. Plain JavaScript, evaluated without the process's loaders or flags.
 */
const LOCK_THREAD = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const { createServer } = process.getBuiltinModule("node:net");
const server = createServer((socket) => {
  socket.on("error", () => {});
  socket.end(workerData.description);
});
server.once("error", (error) => parentPort.postMessage({ error: error.code || String(error) }));
server.listen(workerData.address, () => parentPort.postMessage({ listening: true }));
parentPort.once("message", () => server.close(() => parentPort.close()));
`;

/** Binds the lock's socket on its thread; the thread when bound, else the bind's error code. */
async function bind(address: string, description: string): Promise<Worker | string> {
  const worker = new Worker(LOCK_THREAD, { eval: true, execArgv: [], workerData: { address, description } });
  const outcome = await new Promise<{ listening?: true; error?: string }>((resolve) => {
    worker.once("message", resolve);
    worker.once("error", (error) => resolve({ error: error.message }));
    worker.once("exit", (code) => resolve({ error: `lock thread exited (${code})` }));
  });
  if (outcome.listening) {
    // The lock must not keep a process alive that has nothing else to do.
    worker.unref();
    return worker;
  }
  await worker.terminate();
  return outcome.error ?? "unknown";
}

/** Takes `folder`'s lock for this process, or throws {@link FolderLockedError} naming its holder. */
export async function lockFolder(
  folder: string,
  holder: Omit<FolderLockHolder, "pid"> & { pid?: number },
): Promise<FolderLock> {
  const address = lockAddress(folder);
  const description = `${JSON.stringify({ pid: process.pid, ...holder })}\n`;
  for (let attempt = 1; ; attempt++) {
    const bound = await bind(address, description);
    if (typeof bound !== "string") {
      let released: Promise<void> | undefined;
      return {
        folder,
        release: () => {
          released ??= new Promise((resolve) => {
            bound.once("exit", () => resolve());
            bound.ref(); // the process waits for the thread to let go, even with nothing else to do
            bound.postMessage("release");
          });
          return released;
        },
      };
    }
    if (bound !== "EADDRINUSE") throw new Error(`cannot lock ${folder}: ${bound}`);
    const current = await readHolder(address);
    if (current || attempt === 3) throw new FolderLockedError(folder, current);
    // Nobody answered: the holder released it between our bind and our question (try again), or, on a
    // file socket, died and left the file behind.
    if (!abstractNamespace) rmSync(address, { force: true });
  }
}

/** Who holds `folder`'s lock; undefined when nobody does. */
export async function folderLockHolder(folder: string): Promise<FolderLockHolder | undefined> {
  return readHolder(lockAddress(folder));
}

/** The holder's description, read from its lock socket; undefined when nothing answers there. */
function readHolder(address: string): Promise<FolderLockHolder | undefined> {
  return new Promise((resolve) => {
    const socket = connect(address);
    let text = "";
    socket.setEncoding("utf8");
    socket.setTimeout(2000, () => socket.destroy());
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("error", () => resolve(undefined));
    socket.on("close", () => {
      try {
        resolve(JSON.parse(text) as FolderLockHolder);
      } catch {
        resolve(undefined); // connected but no description: a holder going away
      }
    });
  });
}
