/**
 * `platform status [--json]`: what the running platform's background jobs are doing, read from its admin
 * socket: per service, each indexer's chain, state, position against the head and last error; the
 * crosschain relayer's counters and per-chain state (running, or standby behind another instance's lease).
 */
import type { Config } from "@platform/kernel";
import { callAdmin } from "../admin/adminSocket.ts";
import { platformAnswers } from "../admin/platformAccess.ts";
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

type ServiceStatus = {
  indexers?: IndexerStatus[];
  relayer?: RelayerStatus | null;
  marketData?: MarketDataStatus;
};

const behind = (i: IndexerStatus) =>
  i.head === null || i.next === null ? "-" : String(Math.max(0, Number(BigInt(i.head) + 1n - BigInt(i.next))));

export async function statusCommand(config: Config, o: { json?: boolean }): Promise<void> {
  const status = (await platformAnswers(config))
    ? await callAdmin<Record<string, ServiceStatus>>(config.dataDir, "GET", "/status")
    : undefined;
  if (status === undefined) throw new Error(`No platform is running on the data folder ${config.dataDir}`);
  if (o.json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return;
  }
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
}
