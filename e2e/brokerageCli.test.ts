import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CommandResult,
  createPlatformEnv,
  EPHEMERAL_PORTS,
  hostOrigin,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

let env: Record<string, string>;
let removeEnv: () => Promise<void>;

beforeAll(async () => {
  const made = await createPlatformEnv("brokerage", {
    SERVICES: "brokerage",
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET: "false",
    LOG_LEVEL: "warn",
  });
  ({ env, remove: removeEnv } = made);
});
afterAll(() => removeEnv());

const brokerage = (args: string[]) => runPlatform(["brokerage", ...args], env);

/** Parses a command's `--json` output, failing with its stderr when it did not succeed. */
function json<T>(result: CommandResult): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

interface UserJson {
  id: string;
  email: string;
  accounts: { id: string; env: string; account_number: string; cash: string }[];
}

// Every test runs `platform` processes (each loads every service's modules: 5 to 15 s on a busy machine) and the
// first start may take the 60 s startPlatformProcess allows: 30 s per test failed under load.
describe("platform brokerage", { timeout: 120_000 }, () => {
  let platform: PlatformProcess;
  let user: UserJson;

  it("prints the demo user, its password and the demo client on the first start", async () => {
    platform = await startPlatformProcess(env);
    const out = platform.output();
    expect(out).toMatch(/demo@example\.com/);
    // Whole lines: `\b` after a random base64url value failed when it ended in "-" (no word character).
    expect(out).toMatch(/^\s+password\s+[A-Za-z0-9_-]{16}$/m);
    expect(out).toMatch(/^\s+client_id\s+[0-9a-f]{32}$/m);
    expect(out).toMatch(/^\s+client_secret\s+[A-Za-z0-9_-]{43}$/m);
    expect(out).toContain("http://127.0.0.1:8765/callback");
  });

  it("creates and lists users while the platform runs", async () => {
    user = json<UserJson>(
      await brokerage([
        "users",
        "create",
        "--email",
        "ops@example.com",
        "--password",
        "s3cret pass",
        "--paper-accounts",
        "2",
        "--json",
      ]),
    );
    expect(user.email).toBe("ops@example.com");
    expect(user.accounts.map((a) => a.env)).toEqual(["live", "paper", "paper"]);
    expect(user.accounts[0]?.cash).toBe("100000");

    const listed = json<UserJson[]>(await brokerage(["users", "list", "--json"]));
    expect(listed.map((u) => u.email).sort()).toEqual(["demo@example.com", "ops@example.com"]);
    const table = await brokerage(["users", "list"]);
    expect(table.stdout).toContain(user.accounts[1]?.account_number);
    expect(table.stdout).not.toMatch(/argon2|s3cret/);
  });

  it("reads the password from standard input with --password -", async () => {
    const created = await runPlatform(
      ["brokerage", "users", "create", "--email", "stdin@example.com", "--password", "-", "--json"],
      env,
      "from stdin 123\n",
    );
    expect(json<UserJson>(created).email).toBe("stdin@example.com");
  });

  it("refuses bad input with one clear line and exit code 1", async () => {
    const badEmail = await brokerage(["users", "create", "--email", "nope", "--password", "long enough"]);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/^platform: "nope" is not an email address\n$/);
    const taken = await brokerage(["users", "create", "--email", "OPS@example.com", "--password", "long enough"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/exists already/);
    const badCount = await brokerage([
      "users",
      "create",
      "--email",
      "x@example.com",
      "--password",
      "long enough",
      "--paper-accounts",
      "two",
    ]);
    expect(badCount.code).not.toBe(0);
    expect(badCount.stderr).toMatch(/positive integer/);
    const badUri = await brokerage(["clients", "create", "--name", "App", "--redirect-uri", "http://example.com/cb"]);
    expect(badUri.code).toBe(1);
    expect(badUri.stderr).toMatch(/loopback/);
  });

  it("creates a key pair that reads its account on the paper host", async () => {
    const paper = user.accounts[2] as UserJson["accounts"][number];
    const pair = json<{ key_id: string; secret_key: string; env: string }>(
      await brokerage(["keys", "create", "--account", paper.account_number, "--json"]),
    );
    expect(pair.key_id).toMatch(/^PK[A-Z0-9]{18}$/);
    const headers = { "APCA-API-KEY-ID": pair.key_id, "APCA-API-SECRET-KEY": pair.secret_key };
    const account = await fetch(`${hostOrigin(platform, "brokerage", "paper")}/v2/account`, { headers });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ id: paper.id, account_number: paper.account_number, cash: "100000" });
    const onLive = await fetch(`${platform.baseUrls.brokerage ?? hostOrigin(platform, "brokerage")}/v2/account`, {
      headers,
    });
    expect(onLive.status).toBe(401);

    const human = await brokerage(["keys", "create", "--account", paper.id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/APCA-API-SECRET-KEY\s+\S{40}/);
    const unknown = await brokerage(["keys", "create", "--account", "PA0000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No account/);
  });

  it("creates, lists and revokes OAuth clients", async () => {
    const created = json<{ client_id: string; client_secret: string; redirect_uris: string[] }>(
      await brokerage([
        "clients",
        "create",
        "--name",
        "Ops app",
        "--redirect-uri",
        "https://app.example.com/cb",
        "--redirect-uri",
        "http://127.0.0.1:9000/cb",
        "--json",
      ]),
    );
    expect(created.redirect_uris).toEqual(["https://app.example.com/cb", "http://127.0.0.1:9000/cb"]);
    const listed = await brokerage(["clients", "list", "--json"]);
    const clients = json<{ client_id: string; name: string; revoked_at: string | null }[]>(listed);
    expect(clients.map((c) => c.name).sort()).toEqual(["Demo app", "Ops app"]);
    expect(listed.stdout).not.toContain(created.client_secret);

    const revoked = await brokerage(["clients", "revoke", created.client_id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(/Revoked OAuth client/);
    expect((await brokerage(["clients", "revoke", created.client_id])).stdout).toMatch(/revoked already/);
    const unknown = await brokerage(["clients", "revoke", "0".repeat(32)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No OAuth client/);
    const after = json<{ client_id: string; revoked_at: string | null }[]>(
      await brokerage(["clients", "list", "--json"]),
    );
    expect(after.find((c) => c.client_id === created.client_id)?.revoked_at).toEqual(expect.any(String));
  }, 90_000); // seven `platform` processes in turn (each loads every service's modules): 30 s was too close on CI

  it("stops cleanly", async () => {
    expect(await platform.stop("SIGTERM")).toBe(0);
  });

  it("manages users and keys without a running platform, and does not print the demo again", async () => {
    const listed = json<UserJson[]>(await brokerage(["users", "list", "--json"]));
    expect(listed.map((u) => u.email)).toContain("ops@example.com");
    const pair = json<{ key_id: string; secret_key: string }>(
      await brokerage(["keys", "create", "--account", user.accounts[1]?.account_number as string, "--json"]),
    );
    const restarted = await startPlatformProcess(env);
    try {
      expect(restarted.output()).not.toMatch(/demo@example\.com/);
      const headers = { "APCA-API-KEY-ID": pair.key_id, "APCA-API-SECRET-KEY": pair.secret_key };
      const account = await fetch(`${hostOrigin(restarted, "brokerage", "paper")}/v2/account`, { headers });
      expect(account.status).toBe(200);
    } finally {
      expect(await restarted.stop("SIGINT")).toBe(0);
    }
  });
});
