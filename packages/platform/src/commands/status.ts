/**
 * `platform status [--json]`: the platform's instances (every `platform start` process, its role and whether
 * its heartbeat is recent), the leases (who runs what), and what the background jobs of the process on this
 * data folder are doing, read from its admin socket: per service, each indexer's chain, state, position against
 * the head and last error; the crosschain relayer's counters and per-chain state (running, or standby behind
 * another instance's lease); the settlement dataworker's state and its bundle in flight (or last settled).
 *
 * On the embedded database everything comes from the admin socket of its one platform. On PostgreSQL the
 * instances and leases are read from the database (api and worker instances may run on other hosts); the
 * jobs' details are added when a worker (or an `all`) serves the admin socket of this DATA_DIR.
 * `--json` prints `{ <service>: status, …, instances: [...], leases: [...], queues: [...] }` (queues: per job
 * queue, how many jobs wait, are due, run and died, the oldest due job's wait and the newest error).
 */
import {
  type Config,
  createLeases,
  type InstanceRecord,
  type LeaseRecord,
  listInstances,
  type QueueSummary,
  summarizeQueues,
} from "@platform/kernel";
import { callAdmin, isPlatformRunning } from "../admin/adminSocket.ts";
import { openPlatformOrExplain, platformAnswers } from "../admin/platformAccess.ts";
import { createTable } from "./table.ts";

interface IndexerStatus {
  chainId: number;
  state: string;
  head: string | null;
  next: string | null;
  reorgs?: number;
  lastError: string | null;
}

interface RelayerStatus {
  address: string;
  sent: number;
  confirmed: number;
  replaced: number;
  failed: number;
  skips: Record<string, number>;
  chains: { chainId: number; state: string; inFlight: number; lastError: string | null }[];
}

/** The brokerage's market data recorder (packages/brokerage/src/recording/marketRecorder.ts). */
interface MarketDataStatus {
  recordedTo: string | null;
  behindMs: number | null;
  history: { recordedTo: string; endsAt: string } | null;
  lastError: string | null;
}

/** The crosschain dataworker (packages/crosschain/src/settlement/dataworker.ts `DataworkerStatus`). */
interface SettlementStatus {
  state: string;
  hubChainId: number;
  bundle: { id: number; status: string; ranges: { chainId: number; start: string; end: string }[] } | null;
  bundlesExecuted: number;
  lastTickAt: string | null;
  lastError: string | null;
}

type ServiceStatus = {
  indexers?: IndexerStatus[];
  relayer?: RelayerStatus | null;
  settlement?: SettlementStatus | null;
  marketData?: MarketDataStatus;
};

const behind = (i: IndexerStatus) =>
  i.head === null || i.next === null ? "-" : String(Math.max(0, Number(BigInt(i.head) + 1n - BigInt(i.next))));

/** JSON of a row as it crossed the admin socket (dates as strings). */
type Wire<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };

async function readStatus(config: Config): Promise<{
  services: Record<string, ServiceStatus>;
  instances: Wire<InstanceRecord>[];
  leases: Wire<LeaseRecord>[];
  queues: QueueSummary[];
}> {
  const wire = <T>(rows: T[]) => JSON.parse(JSON.stringify(rows));
  if (config.databaseUrl) {
    const platform = await openPlatformOrExplain(config);
    try {
      const instances = await listInstances(platform.db);
      const leases = await createLeases({ db: platform.db }).list();
      const queues = await summarizeQueues(platform.db);
      const services =
        ((await isPlatformRunning(config.dataDir))
          ? await callAdmin<Record<string, ServiceStatus>>(config.dataDir, "GET", "/status")
          : undefined) ?? {};
      if (!instances.some((i) => i.alive) && Object.keys(services).length === 0) {
        throw new Error("No platform instance is running on this database (DATABASE_URL)");
      }
      return { services, instances: wire(instances), leases: wire(leases), queues };
    } finally {
      await platform.close();
    }
  }
  const notRunning = () => new Error(`No platform is running on the data folder ${config.dataDir}`);
  if (!(await platformAnswers(config))) throw notRunning();
  const admin = async <T>(path: string): Promise<T> => {
    const answer = await callAdmin<T>(config.dataDir, "GET", path);
    if (answer === undefined) throw notRunning();
    return answer;
  };
  return {
    services: await admin<Record<string, ServiceStatus>>("/status"),
    instances: await admin<Wire<InstanceRecord>[]>("/instances"),
    leases: await admin<Wire<LeaseRecord>[]>("/leases"),
    queues: await admin<QueueSummary[]>("/queues"),
  };
}

export async function statusCommand(config: Config, o: { json?: boolean }): Promise<void> {
  const { services: status, instances, leases, queues } = await readStatus(config);
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ ...status, instances, leases, queues }, null, 2)}\n`);
    return;
  }
  const instanceTable = createTable(["instance", "role", "host", "pid", "started", "last heartbeat", "alive"]);
  for (const i of instances) {
    instanceTable.push([i.id, i.role, i.host, String(i.pid), i.started_at, i.heartbeat_at, i.alive ? "yes" : "gone"]);
  }
  process.stdout.write(`Instances\n${instanceTable.toString()}\n\n`);
  const leaseTable = createTable(["lease", "holder", "fencing token", "expires", "held"]);
  for (const l of leases) leaseTable.push([l.name, l.holder ?? "-", l.token, l.expires_at, l.held ? "yes" : "no"]);
  if (leases.length) process.stdout.write(`Leases\n${leaseTable.toString()}\n\n`);
  const queueTable = createTable([
    "job queue",
    "queued",
    "due",
    "oldest due",
    "active",
    "dead",
    "completed",
    "last error",
  ]);
  for (const q of queues) {
    const wait = q.oldest_due_ms === null ? "-" : `${(q.oldest_due_ms / 1000).toFixed(1)} s`;
    const counts = [q.queued, q.due].map(String);
    queueTable.push([
      q.queue,
      ...counts,
      wait,
      String(q.active),
      String(q.dead),
      String(q.completed),
      q.last_error ?? "",
    ]);
  }
  if (queues.length) process.stdout.write(`Jobs\n${queueTable.toString()}\n\n`);
  const indexers = createTable([
    "service",
    "chain",
    "state",
    "next block",
    "head",
    "blocks behind",
    "reorgs",
    "last error",
  ]);
  for (const [service, s] of Object.entries(status)) {
    for (const i of s.indexers ?? []) {
      indexers.push([
        service,
        String(i.chainId),
        i.state,
        i.next ?? "-",
        i.head ?? "-",
        behind(i),
        String(i.reorgs ?? 0),
        i.lastError ?? "",
      ]);
    }
  }
  process.stdout.write(`Indexers\n${indexers.toString()}\n`);
  const marketData = status.brokerage?.marketData;
  if (marketData) {
    const history = marketData.history;
    const historyLine = !history
      ? ""
      : history.recordedTo >= history.endsAt
        ? "; history before the first start: done"
        : `; history before the first start: recorded to ${history.recordedTo} of ${history.endsAt}`;
    process.stdout.write(
      `\nMarket data recorder: recorded to ${marketData.recordedTo ?? "-"} (${marketData.behindMs ?? "-"} ms behind)` +
        `${historyLine}${marketData.lastError ? `; last error: ${marketData.lastError}` : ""}\n`,
    );
  }
  const relayer = status.crosschain?.relayer;
  if (relayer) {
    const chains = createTable(["chain", "state", "fills in flight", "last error"]);
    for (const c of relayer.chains) chains.push([String(c.chainId), c.state, String(c.inFlight), c.lastError ?? ""]);
    const skips =
      Object.entries(relayer.skips)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none";
    process.stdout.write(
      `\nRelayer ${relayer.address}: ${relayer.sent} sent, ${relayer.confirmed} confirmed, ${relayer.replaced} replaced, ` +
        `${relayer.failed} failed; skips: ${skips}\n${chains.toString()}\n`,
    );
  }
  const settlement = status.crosschain?.settlement;
  if (settlement) {
    const b = settlement.bundle;
    const ranges = createTable(["chain", "first block", "last block"]);
    for (const r of b?.ranges ?? []) ranges.push([String(r.chainId), r.start, r.end]);
    process.stdout.write(
      `\nSettlement (hub chain ${settlement.hubChainId}): ${settlement.state}; ${settlement.bundlesExecuted} bundles executed here` +
        `${b ? `; bundle ${b.id} ${b.status}` : ""}${settlement.lastError ? `; last error: ${settlement.lastError}` : ""}\n` +
        (b ? `${ranges.toString()}\n` : ""),
    );
  }
}
