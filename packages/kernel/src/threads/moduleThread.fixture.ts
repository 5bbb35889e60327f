/** The module moduleThread.test.ts runs on a thread: echoes, fails, moves bytes, answers a function, never answers, or dies on request. */
import { serveRequests } from "./moduleThread.ts";

type Request =
  | { kind: "echo"; value: unknown }
  | { kind: "fail" }
  | { kind: "bytes"; n: number }
  | { kind: "die" }
  | { kind: "hang" }
  | { kind: "uncloneable" };

serveRequests(async (request: Request) => {
  if (request.kind === "echo") return { value: request.value };
  if (request.kind === "fail") throw new RangeError("asked to fail");
  if (request.kind === "bytes") {
    const bytes = new Uint8Array(request.n).fill(7);
    return { value: bytes, transfer: [bytes.buffer] };
  }
  if (request.kind === "hang") return new Promise<never>(() => {});
  if (request.kind === "uncloneable") return { value: { f: () => 1 } };
  process.exit(3);
});
