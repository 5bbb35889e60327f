/**
 * A TypeScript module on a worker thread of its own, asked requests and answering them: for CPU-heavy
 * work (an indexer's reading and decoding of hundreds of megabytes of RPC replies) that would otherwise
 * hold the main thread, and its garbage collector, which in a process carrying the whole platform's
 * modules marks a ~35 MB heap every time a couple of megabytes survive (bench/README).
 *
 * The module calls `serveRequests(handler)`; the main thread `startModuleThread(url)` and `request()`s.
 * Answers may move ArrayBuffers instead of copying them. A thread that dies rejects what it was asked
 * and is started afresh by the next request, as is a closed one. The thread never keeps the process alive.
 *
 * @example
 * // worker.ts
 * serveRequests(async (n: number) => ({ value: n * 2 }));
 * // main
 * const thread = startModuleThread(new URL("./worker.ts", import.meta.url));
 * await thread.request(21); // 42
 * await thread.close();
 */
import { isMainThread, parentPort, type Transferable, Worker } from "node:worker_threads";

type Answer = { id: number; value: unknown } | { id: number; error: { name: string; message: string } };

/**
 * An error thrown on the thread, as the main thread receives it: its `name` is the thrown error's own
 * (e.g. "RangeError"; "ThreadError" when the thread itself failed), so callers tell kinds apart by
 * `instanceof ThreadError` and `name`, as they would on their own thread.
 */
export class ThreadError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export type ThreadErrorType = ThreadError;

export interface ModuleThread {
  /** Sends `message` to the module's handler; resolves with its answer, rejects with a ThreadError. */
  request<T>(message: unknown): Promise<T>;
  /** Stops the thread; requests still open are rejected. A later request starts it again. */
  close(): Promise<void>;
  /** Whether the thread is started (it starts with the first request). */
  readonly running: boolean;
}

export function startModuleThread(module: URL): ModuleThread {
  let worker: Worker | undefined;
  let nextId = 0;
  /** Requests not answered yet, with the worker each was sent to. */
  const open = new Map<number, { to: Worker; resolve(value: unknown): void; reject(error: Error): void }>();

  /** Rejects the open requests sent to `to` (all of them without it): a replacement's are not its concern. */
  function failAll(error: Error, to?: Worker) {
    for (const [id, waiting] of open) {
      if (to && waiting.to !== to) continue;
      open.delete(id);
      waiting.reject(error);
    }
  }

  function start(): Worker {
    // execArgv: [] — the main thread's own loader flags would register hooks again inside the thread.
    const w = new Worker(new URL("./moduleThreadEntry.mjs", import.meta.url), {
      workerData: { module: module.href },
      execArgv: [],
    });
    w.unref();
    w.on("message", (answer: Answer) => {
      const waiting = open.get(answer.id);
      open.delete(answer.id);
      if (!waiting) return;
      if ("error" in answer) waiting.reject(new ThreadError(answer.error.name, answer.error.message));
      else waiting.resolve(answer.value);
    });
    w.on("error", (error) => {
      if (worker === w) worker = undefined;
      failAll(new ThreadError("ThreadError", `thread ${module.pathname} failed: ${error.message}`), w);
    });
    w.on("exit", (code) => {
      if (worker === w) worker = undefined;
      failAll(new ThreadError("ThreadError", `thread ${module.pathname} stopped (exit code ${code})`), w);
    });
    return w;
  }

  return {
    request<T>(message: unknown) {
      worker ??= start();
      const id = ++nextId;
      const w = worker;
      return new Promise<T>((resolve, reject) => {
        open.set(id, { to: w, resolve: resolve as (value: unknown) => void, reject });
        w.postMessage({ id, message });
      });
    },
    get running() {
      return worker !== undefined;
    },
    async close() {
      const w = worker;
      worker = undefined;
      failAll(new ThreadError("ThreadError", "thread closed"));
      if (w) await w.terminate();
    },
  };
}

/**
 * `bytes`, or a copy of them, that can be moved to the other thread: moving a view's ArrayBuffer takes
 * the whole buffer, so a view into one of Buffer's shared 8 KiB pool slabs (where small Buffers live)
 * is copied first; a buffer of 64 KiB or more is a Buffer's own allocation and moves as it is.
 *
 * @example
 * const moved = movableBytes(rows);
 * return { value: { rows: moved }, transfer: [moved.buffer] };
 */
export function movableBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength >= 64 * 1024 ? bytes : bytes.slice();
}

/** What a handler answers: a value, and the ArrayBuffers inside it to move rather than copy. */
export interface ThreadAnswer {
  value: unknown;
  transfer?: Transferable[];
}

/** Called by a module running on a module thread: answers each request with `handler`. */
export function serveRequests(handler: (message: never) => Promise<ThreadAnswer>): void {
  const port = parentPort;
  if (isMainThread || !port) throw new Error("serveRequests runs on a module thread (startModuleThread)");
  const fail = (id: number, error: Error) =>
    port.postMessage({
      id,
      error: { name: error?.name ?? "Error", message: error?.message ?? String(error) },
    } satisfies Answer);
  port.on("message", ({ id, message }: { id: number; message: never }) => {
    handler(message).then(
      ({ value, transfer }) => {
        try {
          port.postMessage({ id, value } satisfies Answer, transfer ?? []);
        } catch (error) {
          fail(id, error as Error); // an answer that cannot be cloned (a function, say)
        }
      },
      fail.bind(null, id),
    );
  });
}
