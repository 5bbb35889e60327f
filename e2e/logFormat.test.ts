/**
 * What `platform start` prints, as a collector and as a person read it: without a terminal (a pipe, as here)
 * stdout is JSON lines only, access lines included, and the banner goes to stderr; with LOG_FORMAT=pretty no
 * line is JSON, the development-default warnings read as text, and access lines stay out unless asked.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  startPlatformProcess,
} from "./support/platformProcess.ts";

// One devnet chain: its development-default warning is printed on PGlite and PostgreSQL alike.
const VARS = {
  SERVICES: "wearables",
  ...EPHEMERAL_PORTS,
  DEVNET: "true",
  DEVNET_CHAINS: "1337",
  LOG_LEVEL: "info",
};

let platform: PlatformProcess | undefined;
let removeEnv: (() => Promise<void>) | undefined;

afterEach(async () => {
  await platform?.stop("SIGTERM");
  await removeEnv?.();
  platform = undefined;
  removeEnv = undefined;
});

async function start(vars: Record<string, string>): Promise<PlatformProcess> {
  const made = await createPlatformEnv("logs", { ...VARS, ...vars });
  removeEnv = made.remove;
  platform = await startPlatformProcess(made.env);
  return platform;
}

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

/** Whether `line` is a JSON object, as a log collector would take it. */
function isJsonObject(line: string): boolean {
  try {
    const value = JSON.parse(line);
    return value !== null && typeof value === "object";
  } catch {
    return false;
  }
}

describe("platform start's output", { timeout: 120_000 }, () => {
  it("is JSON lines only on a stdout that is not a terminal, access lines included; the banner is on stderr", async () => {
    const p = await start({});
    const base = p.baseUrls.wearables as string;
    expect((await fetch(`${new URL(base).origin}/health`)).status).toBe(200);
    await vi.waitFor(() => expect(p.stdout()).toContain('"msg":"request"'), { timeout: 5_000, interval: 50 });

    const records = lines(p.stdout()).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.map((r) => r.msg)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^development default in effect: DEVNET is on/),
        "platform started",
        "request",
      ]),
    );
    expect(p.stdout()).not.toContain("Ctrl-C stops the platform");
    expect(p.output()).toContain("Ctrl-C stops the platform");
  });

  it("has no JSON line with LOG_FORMAT=pretty, warns in one line of text and keeps access lines out", async () => {
    const p = await start({ LOG_FORMAT: "pretty" });
    const base = p.baseUrls.wearables as string;
    expect((await fetch(`${new URL(base).origin}/health`)).status).toBe(200);
    // Stopped after the answer: a request line, were there one, was written by then.
    expect(await p.stop("SIGTERM")).toBe(0);
    platform = undefined;

    const out = lines(p.output());
    expect(out.filter(isJsonObject)).toEqual([]);
    const warning = out.filter((l) => l.includes("development default in effect: DEVNET is on"));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}development default in effect: .* option=DEVNET /);
    expect(
      out.some((l) =>
        / INFO {2}platform started role=all instance=\S+ services=\["wearables","wearables sandbox"\]/.test(l),
      ),
    ).toBe(true);
    expect(out.some((l) => l.includes("GET /health"))).toBe(false);
    // The banner lists the URLs: Fastify's "Server listening at" lines would only repeat them.
    expect(out.some((l) => l.includes("Server listening"))).toBe(false);
    // The banner ends what starting prints: it follows the last start-up line.
    const started = out.findIndex((l) => l.includes("platform started"));
    expect(out.findIndex((l) => l.includes("Platform running"))).toBeGreaterThan(started);
    expect(p.output()).not.toContain("\u001b["); // not a terminal: no colours
  });
});
