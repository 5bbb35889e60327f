import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createLogger } from "@platform/kernel";
import { type Address, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it, vi } from "vitest";
import { loadArtifact } from "./artifacts.ts";
import { createChainClient, createChainWalletClient } from "./clients.ts";
import { type Devnet, startDevnet } from "./devnet.ts";
import { type DevnetManifest, manifestToken, readManifest } from "./manifest.ts";

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const erc20Abi = loadArtifact("ExpandedERC20").abi;

/** Process state from /proc: undefined when gone; "Z" for a zombie (dead, not yet reaped by its parent). */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // kill(pid, 0) also succeeds on zombies; an orphaned zombie is dead for our purpose.
  return procState(pid) !== "Z";
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}

/** Live children of this process (anvil and its watchdog shell). */
function liveChildren(): string[] {
  const out: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === process.pid && state !== "Z" && (comm === "anvil" || comm === "sh")) {
        out.push(`${entry}:${comm}`);
      }
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The parts of a manifest that must not vary between runs (URLs, genesis and time do). */
function layout(m: DevnetManifest) {
  return {
    accounts: m.accounts,
    artifacts: m.artifacts,
    chains: m.chains.map((c) => ({
      chainId: c.chainId,
      name: c.name,
      contracts: c.contracts,
      tokens: c.tokens,
      pools: c.pools,
      v3Pools: c.v3Pools,
      wrappedNativeToken: c.wrappedNativeToken,
    })),
  };
}

describe("startDevnet", () => {
  it("produces identical addresses on every run and every chain (fresh deployment vs cached template)", async () => {
    const cacheDir = tempDir("devnet-cache-");
    const opts = {
      chainIds: [1, 42161],
      ports: {},
      blockTimeSec: 0 as const,
      persist: false,
      templateCacheDir: cacheDir,
    };
    const a = await startDevnet({ ...opts, dataDir: tempDir("devnet-a-"), useTemplateCache: false });
    await a.stop();
    const b = await startDevnet({ ...opts, dataDir: tempDir("devnet-b-") });
    await b.stop();
    expect(layout(b.manifest)).toEqual(layout(a.manifest));
    expect(readManifest(a.manifestPath)).toEqual(a.manifest);
    const [c1, c2] = a.manifest.chains;
    expect(c1?.contracts).toEqual(c2?.contracts);
    expect(a.manifest.devnetOnly).toBe(true);
    expect(a.manifest.warning).toMatch(/DEVNET ONLY/);
  });

  it("keeps balances across a restart, and forgets them on reset", async () => {
    const dataDir = tempDir("devnet-persist-");
    const opts = { dataDir, chainIds: [10], ports: {}, blockTimeSec: 0 as const };
    const receiver: Address = "0x000000000000000000000000000000000000bEEF";

    const first = await startDevnet(opts);
    const chain = first.manifest.chains[0];
    if (!chain) throw new Error("no chain");
    const usdc = manifestToken(chain, "USDC").address;
    const user = first.manifest.accounts.users[0];
    if (!user) throw new Error("no user");
    const wallet = createChainWalletClient({
      chainId: 10,
      rpcUrl: chain.rpcUrl,
      account: privateKeyToAccount(user.privateKey),
    });
    const client = createChainClient({ chainId: 10, rpcUrl: chain.rpcUrl });
    const amount = parseUnits("123", 6);
    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: usdc,
        abi: erc20Abi,
        functionName: "transfer",
        args: [receiver, amount],
      }),
    });
    await first.stop();

    const balance = async (d: Devnet) =>
      createChainClient({ chainId: 10, rpcUrl: d.chains[0]?.rpcUrl ?? "" }).readContract({
        address: usdc,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [receiver],
      });

    const second = await startDevnet(opts);
    try {
      expect(await balance(second)).toBe(amount);
      expect(second.manifest.chains[0]?.genesisHash).toBe(chain.genesisHash);
      expect(layout(second.manifest)).toEqual(layout(first.manifest));
    } finally {
      await second.stop();
    }

    const third = await startDevnet({ ...opts, reset: true });
    try {
      expect(await balance(third)).toBe(0n);
      expect(third.manifest.chains[0]?.genesisHash).not.toBe(chain.genesisHash);
      expect(layout(third.manifest)).toEqual(layout(first.manifest));
    } finally {
      await third.stop();
    }
  });

  it("starts a chain fresh (with a warning) when its saved state is unreadable", async () => {
    const dataDir = tempDir("devnet-corrupt-");
    const opts = { dataDir, chainIds: [137], ports: {}, blockTimeSec: 0 as const };
    const first = await startDevnet(opts);
    await first.stop();
    const file = join(dataDir, "devnet", "chain-137.json");
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 1000)); // a dump cut short
    const logger = createLogger({ level: "silent" });
    const warn = vi.spyOn(logger, "warn");
    const second = await startDevnet({ ...opts, logger });
    try {
      expect(warn).toHaveBeenCalledTimes(1);
      expect(second.manifest.chains[0]?.genesisHash).not.toBe(first.manifest.chains[0]?.genesisHash);
      const code = await createChainClient({ chainId: 137, rpcUrl: second.chains[0]?.rpcUrl ?? "" }).getCode({
        address: second.manifest.chains[0]?.pools[0]?.pair ?? "0x",
      });
      expect(code?.length).toBeGreaterThan(2);
    } finally {
      await second.stop();
    }
  });

  it("leaves no process behind after stop()", async () => {
    const devnet = await startDevnet({
      dataDir: tempDir("devnet-stop-"),
      chainIds: [137, 999],
      ports: {},
      blockTimeSec: 0,
      persist: false,
    });
    const pids = devnet.chains.map((c) => c.pid);
    expect(pids.every(isRunning)).toBe(true);
    await devnet.stop();
    await devnet.stop(); // idempotent
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(await waitFor(() => liveChildren().length === 0, 2000)).toBe(true);
  });

  it("fails cleanly, stopping the chains already started, when a port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      await expect(
        startDevnet({
          dataDir: tempDir("devnet-taken-"),
          chainIds: [1, 10],
          ports: { 10: taken },
          blockTimeSec: 0,
          persist: false,
        }),
      ).rejects.toThrow(/already in use/i);
      expect(await waitFor(() => liveChildren().length === 0, 2000)).toBe(true);
    } finally {
      blocker.close();
    }
  });

  it("stops anvil (and saves its state) when the parent process is SIGKILLed", async () => {
    const dataDir = tempDir("devnet-orphan-");
    const devnetTs = pathToFileURL(fileURLToPath(new URL("./devnet.ts", import.meta.url))).href;
    const code = `
      const { startDevnet } = await import(${JSON.stringify(devnetTs)});
      const d = await startDevnet({ dataDir: ${JSON.stringify(dataDir)}, chainIds: [10], ports: {}, blockTimeSec: 0 });
      console.log("PIDS " + JSON.stringify(d.chains.map((c) => c.pid)));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pids = await new Promise<number[]>((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => {
        out += d;
        const m = /PIDS (\[.*\])/.exec(out);
        if (m?.[1]) resolve(JSON.parse(m[1]) as number[]);
      });
      child.stderr.on("data", (d) => {
        err += d;
      });
      child.on("exit", (c) => reject(new Error(`child exited (${c}): ${err}`)));
    });
    expect(pids).toHaveLength(1);
    expect(pids.every(isRunning)).toBe(true);
    child.kill("SIGKILL");
    expect(await waitFor(() => !pids.some(isRunning), 5000)).toBe(true);
    // The watchdog sent SIGTERM (not SIGKILL), so anvil wrote its state on the way out.
    expect(await waitFor(() => existsSync(join(dataDir, "devnet", "chain-10.json")), 2000)).toBe(true);
  });

  it("mines interval blocks while still mining each transaction at once (mixed mining)", async () => {
    const devnet = await startDevnet({
      dataDir: tempDir("devnet-mining-"),
      chainIds: [8453],
      ports: {},
      blockTimeSec: 1,
      persist: false,
    });
    try {
      const chain = devnet.manifest.chains[0];
      if (!chain) throw new Error("no chain");
      expect(chain.blockTimeSec).toBe(1);
      const client = createChainClient({ chainId: 8453, rpcUrl: chain.rpcUrl });
      // Blocks come without transactions (polled: a loaded machine may run timers late).
      const start = await client.getBlockNumber({ cacheTime: 0 });
      let now = start;
      for (let waited = 0; now < start + 2n && waited < 10_000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
        now = await client.getBlockNumber({ cacheTime: 0 });
      }
      expect(now).toBeGreaterThanOrEqual(start + 2n);

      const user = devnet.manifest.accounts.users[1];
      if (!user) throw new Error("no user");
      const wallet = createChainWalletClient({
        chainId: 8453,
        rpcUrl: chain.rpcUrl,
        account: privateKeyToAccount(user.privateKey),
      });
      // Signed first, so that only sending and mining are timed.
      const request = await wallet.prepareTransactionRequest({
        to: "0x000000000000000000000000000000000000dEaD",
        value: 1n,
      });
      const signed = await wallet.signTransaction(request);
      const sentAt = Date.now();
      const hash = await wallet.sendRawTransaction({ serializedTransaction: signed });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      expect(Date.now() - sentAt).toBeLessThan(900);
    } finally {
      await devnet.stop();
    }
  });
});
