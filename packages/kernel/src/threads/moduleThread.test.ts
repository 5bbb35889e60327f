import { isMainThread } from "node:worker_threads";
import { afterEach, expect, it } from "vitest";
import { type ModuleThread, serveRequests, startModuleThread } from "./moduleThread.ts";

const fixture = new URL("./moduleThread.fixture.ts", import.meta.url);
let thread: ModuleThread | undefined;
afterEach(async () => {
  await thread?.close();
});

it("runs a TypeScript module on a thread and answers its requests in kind (bigints, nested data)", async () => {
  thread = startModuleThread(fixture);
  const value = { n: 2n ** 70n, list: [1, "two", { three: 3n }] };
  expect(await thread.request({ kind: "echo", value })).toEqual(value);
  const many = await Promise.all([1, 2, 3].map((n) => thread?.request({ kind: "echo", value: n })));
  expect(many).toEqual([1, 2, 3]);
});

it("moves bytes the module hands back", async () => {
  thread = startModuleThread(fixture);
  const bytes = await thread.request<Uint8Array>({ kind: "bytes", n: 100_000 });
  expect(bytes.length).toBe(100_000);
  expect(bytes[99_999]).toBe(7);
});

it("rejects with the module's error name and message", async () => {
  thread = startModuleThread(fixture);
  await expect(thread.request({ kind: "fail" })).rejects.toMatchObject({
    name: "RangeError",
    message: "asked to fail",
  });
  expect(await thread.request({ kind: "echo", value: "still there" })).toBe("still there");
  await expect(thread.request({ kind: "uncloneable" })).rejects.toMatchObject({ name: "DataCloneError" });
  expect(await thread.request({ kind: "echo", value: "and still" })).toBe("and still");
});

it("a thread that dies rejects what it was asked, and the next request starts it again", async () => {
  thread = startModuleThread(fixture);
  await expect(thread.request({ kind: "die" })).rejects.toThrow(/exit code 3/);
  expect(await thread.request({ kind: "echo", value: "again" })).toBe("again");
});

it("a closed thread starts again with the next request", async () => {
  thread = startModuleThread(fixture);
  expect(thread.running).toBe(false);
  await thread.request({ kind: "echo", value: 1 });
  expect(thread.running).toBe(true);
  await thread.close();
  expect(thread.running).toBe(false);
  expect(await thread.request({ kind: "echo", value: 2 })).toBe(2);
});

it("close() rejects the requests still open", async () => {
  thread = startModuleThread(fixture);
  // The expectation is attached before close() rejects the request, so the rejection is never unhandled.
  const rejected = expect(thread.request({ kind: "hang" })).rejects.toThrow("thread closed");
  await thread.close();
  await rejected;
  thread = undefined;
});

it("serveRequests refuses to run on the main thread", () => {
  expect(isMainThread).toBe(true);
  expect(() => serveRequests(async () => ({ value: 1 }))).toThrow(/module thread/);
});
