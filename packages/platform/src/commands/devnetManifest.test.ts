/**
 * DEVNET=false never reads a devnet manifest left in DATA_DIR (its chains are local, its keys public),
 * and with DEVNET on, the devnet's relayer key reaches the crosschain relayer without entering the shared
 * `config`. Run against the real commands, a real devnet and the embedded database.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevnetManifest, startDevnet } from "@platform/chains";
import { crosschainService } from "@platform/crosschain";
import { type Config, loadConfig, type PlatformContext } from "@platform/kernel";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { callAdmin } from "../admin/adminSocket.ts";
import { relayerCommand } from "./relayer.ts";
import { type RunningPlatform, startPlatform } from "./start.ts";

const CHAIN = 1337;
const dirs: string[] = [];
let running: RunningPlatform | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data folder holding the manifest of a devnet that ran there and is gone. */
async function folderWithLeftoverManifest(): Promise<{ dataDir: string; manifest: DevnetManifest }> {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-leftover-"));
  dirs.push(dataDir);
  const devnet = await startDevnet({ dataDir, chainIds: [CHAIN], ports: { [CHAIN]: 0 }, blockTimeSec: 0 });
  await devnet.stop();
  expect(existsSync(join(dataDir, "devnet.json"))).toBe(true);
  return { dataDir, manifest: devnet.manifest };
}

const configFor = (dataDir: string, env: Record<string, string>): Config =>
  loadConfig({
    env: { DATA_DIR: dataDir, LOG_LEVEL: "silent", SERVICES: "crosschain", CROSSCHAIN_PORT: "0", ...env },
  });

/** The command's outcome: the error it refused with, or "started" (then stopped at once). */
const outcomeOf = (started: Promise<() => Promise<void>>) =>
  started.then(
    async (stop) => {
      await stop();
      return "started";
    },
    (error: Error) => error,
  );

/** The contexts `platform start` gives the crosschain service. */
function spyOnCrosschainContexts(): PlatformContext[] {
  const contexts: PlatformContext[] = [];
  const create = crosschainService.create.bind(crosschainService);
  vi.spyOn(crosschainService, "create").mockImplementation((context) => {
    contexts.push(context);
    return create(context);
  });
  return contexts;
}

type CrosschainStatus = { relayer: { address: string } | null; chainState: unknown[] };

describe("with DEVNET=false and a devnet manifest left in DATA_DIR", () => {
  let leftover: { dataDir: string; manifest: DevnetManifest };
  beforeAll(async () => {
    leftover = await folderWithLeftoverManifest();
  });

  it("platform relayer without CROSSCHAIN_RELAYER_KEY refuses to start, naming the option", async () => {
    const outcome = await outcomeOf(
      relayerCommand(configFor(leftover.dataDir, { DEVNET: "false" }), { indexer: false }),
    );
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/Set CROSSCHAIN_RELAYER_KEY .*DEVNET=false/);
  });

  it("platform relayer with a key does not use the manifest's chains", async () => {
    const config = configFor(leftover.dataDir, { DEVNET: "false", CROSSCHAIN_RELAYER_KEY: `0x${"11".repeat(32)}` });
    const outcome = await outcomeOf(relayerCommand(config, { indexer: false }));
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/No chain with a SpokePool/);
  });

  it("platform start uses neither the manifest's chains nor its key", async () => {
    const contexts = spyOnCrosschainContexts();
    running = await startPlatform(configFor(leftover.dataDir, { DEVNET: "false" }));
    expect(contexts).toHaveLength(1);
    const [context] = contexts as [PlatformContext];
    expect(context.chains).toEqual([]);
    expect(context.devnet).toBeUndefined();
    expect(context.config.crosschainRelayerKey).toBeUndefined();
    const status = await callAdmin<{ crosschain: CrosschainStatus }>(leftover.dataDir, "GET", "/status");
    expect(status?.crosschain.relayer).toBeNull();
  });
});

describe("with DEVNET on", () => {
  it("platform start hands the devnet's relayer key to the relayer, not to the shared config", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "platform-devnet-"));
    dirs.push(dataDir);
    const contexts = spyOnCrosschainContexts();
    running = await startPlatform(
      configFor(dataDir, { DEVNET_CHAINS: String(CHAIN), DEVNET_PORTS: `${CHAIN}=0`, DEVNET_BLOCK_TIME: "0" }),
    );
    const [context] = contexts as [PlatformContext];
    const manifest = JSON.parse(readFileSync(join(dataDir, "devnet.json"), "utf8")) as DevnetManifest;
    expect(context.config.crosschainRelayerKey).toBeUndefined();
    expect(context.devnet?.relayerKey).toBe(manifest.accounts.relayer.privateKey);
    const status = await callAdmin<{ crosschain: CrosschainStatus }>(dataDir, "GET", "/status");
    expect(status?.crosschain.relayer?.address).toBe(manifest.accounts.relayer.address);
  });
});
