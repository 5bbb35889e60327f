import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FolderLockedError, folderLockHolder, lockFolder } from "./folderLock.ts";

const root = mkdtempSync(join(tmpdir(), "folder-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A process that takes `folder`'s lock, says so, and then keeps its main thread busy until it is killed. */
function holdInChild(folder: string) {
  const module = pathToFileURL(fileURLToPath(new URL("./folderLock.ts", import.meta.url))).href;
  const code = `
    const { lockFolder } = await import(${JSON.stringify(module)});
    await lockFolder(${JSON.stringify(folder)}, { command: "platform child", servesAdmin: true });
    console.log("LOCKED");
    for (;;) {}`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("LOCKED") && resolve());
    void exited.then(() => reject(new Error("the child exited before it locked")));
  });
  return { child, exited, locked };
}

describe("lockFolder", () => {
  it("lets a process that has nothing else to do wait for its release", async () => {
    const module = pathToFileURL(fileURLToPath(new URL("./folderLock.ts", import.meta.url))).href;
    const code = `
      const { lockFolder } = await import(${JSON.stringify(module)});
      const lock = await lockFolder(${JSON.stringify(join(root, "released"))}, { command: "x", servesAdmin: false });
      await lock.release();
      console.log("RELEASED");`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
    });
    // 13 would be Node's "unsettled top-level await": the release never resolved.
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(out).toContain("RELEASED");
  });

  it("gives a folder to one holder at a time, and names the holder to the others", async () => {
    const folder = join(root, "one");
    const lock = await lockFolder(folder, { command: "platform start", servesAdmin: true });
    expect(await folderLockHolder(folder)).toEqual({ pid: process.pid, command: "platform start", servesAdmin: true });
    const refused = await lockFolder(folder, { command: "platform keys create", servesAdmin: false }).catch((e) => e);
    expect(refused).toBeInstanceOf(FolderLockedError);
    expect(refused.holder).toEqual({ pid: process.pid, command: "platform start", servesAdmin: true });
    expect(refused.message).toBe(
      `${folder} is in use by \`platform start\` (pid ${process.pid}): it has one owner at a time`,
    );
    // Another folder is another lock.
    const other = await lockFolder(join(root, "two"), { command: "platform devnet", servesAdmin: false });
    await other.release();
    await lock.release();
    expect(await folderLockHolder(folder)).toBeUndefined();
    const again = await lockFolder(folder, { command: "platform keys create", servesAdmin: false });
    await again.release();
  });

  it("names a folder by its real path: a symlink to it is the same lock", async () => {
    const folder = join(root, "real");
    const lock = await lockFolder(folder, { command: "platform start", servesAdmin: true });
    const { symlinkSync } = await import("node:fs");
    symlinkSync(folder, join(root, "link"));
    await expect(lockFolder(join(root, "link"), { command: "x", servesAdmin: false })).rejects.toBeInstanceOf(
      FolderLockedError,
    );
    await lock.release();
  });

  it("names its holder while the holder's main thread is busy, and is free as soon as it is killed", async () => {
    const folder = join(root, "killed");
    const holder = holdInChild(folder);
    await holder.locked;
    expect((await folderLockHolder(folder))?.pid).toBe(holder.child.pid);
    await expect(lockFolder(folder, { command: "x", servesAdmin: false })).rejects.toBeInstanceOf(FolderLockedError);
    holder.child.kill("SIGKILL");
    await holder.exited;
    const lock = await lockFolder(folder, { command: "platform start", servesAdmin: true });
    await lock.release();
  });
});
