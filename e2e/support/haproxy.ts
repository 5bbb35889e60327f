/**
 * HAProxy in front of several `platform start --role api` instances, for end-to-end tests: Debian's package
 * (`/usr/sbin/haproxy`, or HAPROXY_PATH), run as a child in the foreground (`-db`) with a generated config:
 * one frontend per service host, each on a free port of 127.0.0.1, balancing round-robin over that host's
 * port on every instance, with health checks (a dead instance leaves the rotation; a request that could not
 * connect is retried on another one) and `option forwardfor` (the instances run with TRUST_PROXY=1).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";

export const HAPROXY = process.env.HAPROXY_PATH ?? "/usr/sbin/haproxy";
export const haproxyInstalled = () => existsSync(HAPROXY);

/** One balanced host: its name (a frontend's), and the `host:port` it answers on at every instance. */
export interface BalancedHost {
  name: string;
  servers: string[];
}

export interface Balancer {
  /** The origin (`http://127.0.0.1:<port>`) of each balanced host, by name. */
  origins: Record<string, string>;
  child: ChildProcess;
  /** What HAProxy printed (its warnings, servers going down and up). */
  output(): string;
  stop(): Promise<void>;
}

/** A port nothing listens on now (HAProxy binds it a moment later). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

/** The configuration for `hosts`, each frontend on `ports[name]`. */
export function haproxyConfig(hosts: BalancedHost[], ports: Record<string, number>): string {
  const lines = [
    "global",
    "  maxconn 2000",
    "",
    "defaults",
    "  mode http",
    "  option forwardfor",
    "  option http-server-close",
    // A request whose connection to an instance failed goes to another one (a killed instance refuses at once).
    "  option redispatch 1",
    "  retries 3",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  timeout tunnel 1h",
    "  timeout http-request 10s",
    "  default-server check inter 500ms fall 2 rise 2",
    "",
  ];
  for (const host of hosts) {
    lines.push(
      `frontend ${host.name}`,
      `  bind 127.0.0.1:${ports[host.name]}`,
      `  default_backend ${host.name}`,
      "",
      `backend ${host.name}`,
      "  balance roundrobin",
      ...host.servers.map((server, i) => `  server api${i + 1} ${server}`),
      "",
    );
  }
  return lines.join("\n");
}

/**
 * Writes the configuration of `hosts` into `dir`, starts HAProxy on it and resolves once every frontend
 * accepts connections.
 */
export async function startHaproxy(hosts: BalancedHost[], dir: string, timeoutMs = 15_000): Promise<Balancer> {
  const ports: Record<string, number> = {};
  for (const host of hosts) ports[host.name] = await freePort();
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, haproxyConfig(hosts, ports));
  const check = spawn(HAPROXY, ["-c", "-q", "-f", file], { stdio: "pipe" });
  let checkOut = "";
  check.stderr.on("data", (c) => {
    checkOut += c;
  });
  check.stdout.on("data", (c) => {
    checkOut += c;
  });
  const checked = await new Promise<number | null>((resolve) => check.on("exit", resolve));
  if (checked !== 0) throw new Error(`haproxy -c refused ${file}:\n${checkOut}`);

  const child = spawn(HAPROXY, ["-f", file, "-db"], { stdio: "pipe" });
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  child.stderr.on("data", (c) => {
    out += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const origins = Object.fromEntries(hosts.map((h) => [h.name, `http://127.0.0.1:${ports[h.name]}`]));
  const deadline = Date.now() + timeoutMs;
  for (const host of hosts) {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${out}`);
      if (await accepts(ports[host.name] as number)) break;
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`haproxy did not listen on ${host.name} in time:\n${out}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    origins,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
