/**
 * The `dataFanout` part's stream clients, in the benchmark's own process: `ws` connections to `/v2/iex` of the
 * service's data host or of the baseline, each through the anchor's handshake (`connected`, `auth` with an
 * OAuth token, `subscribe` to trades and quotes of the symbols), then counting what arrives. A frame is read
 * without `JSON.parse` (1,000 connections' parsing would measure this process rather than the server): every
 * message carries `"t":"<stamp>"` (`dataFeedMessages.ts`), the stamp gives its injection instant, and stamps
 * that increase strictly on a connection mean every message came once and in order.
 */
import WebSocket from "ws";
import { type LatencySummary, summarize } from "../lib/latency.ts";
import { microsOf, wallMicros } from "./dataFeedMessages.ts";

const STAMP_KEY = Buffer.from('"t":"');
const STAMP_LENGTH = 27;
const ERROR_TYPE = Buffer.from('"T":"error"');
const CONNECT_PARALLEL = 50;

/** What one measured window delivered to the clients. */
export interface Delivery {
  /** Messages every client should have had, and what they got. */
  expected: number;
  delivered: number;
  frames: number;
  /** Messages that came twice or out of order (must be 0). */
  misordered: number;
  /** Error messages received (e.g. 407 slow client) and connections closed during the window. */
  errors: number;
  closed: number;
  /** First injection → last arrival (s); the rates are over it. */
  windowSec: number;
  framesPerSec: number;
  messagesPerSec: number;
  /** Injection → arrival, for every message at every client (ms). */
  perClient: LatencySummary;
  /** Injection → arrival at the last client that had it, per message (ms). */
  toLastClient: LatencySummary;
}

interface Client {
  socket: WebSocket;
  lastStamp: number;
}

/** Opens `count` subscribed clients on `origin` (`tokens[c % tokens.length]` each) and records what they get. */
export async function openDataClients(
  origin: string,
  tokens: readonly string[],
  count: number,
  symbols: readonly string[],
) {
  const clients: Client[] = [];
  let latencies: number[] = [];
  let lastArrival = new Map<number, number>();
  let frames = 0;
  let delivered = 0;
  let misordered = 0;
  let errors = 0;
  let closed = 0;
  let measuring = false;

  function onFeedFrame(client: Client, data: Buffer): void {
    if (!measuring) return;
    const at = wallMicros();
    frames++;
    if (data.includes(ERROR_TYPE)) errors++;
    for (let i = data.indexOf(STAMP_KEY); i >= 0; i = data.indexOf(STAMP_KEY, i + STAMP_LENGTH)) {
      const start = i + STAMP_KEY.length;
      const stamp = microsOf(data.toString("latin1", start, start + STAMP_LENGTH));
      if (!(stamp > client.lastStamp)) misordered++;
      client.lastStamp = stamp;
      delivered++;
      latencies.push((at - stamp) / 1000);
      if ((lastArrival.get(stamp) ?? 0) < at) lastArrival.set(stamp, at);
    }
  }

  function open(c: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${origin.replace(/^http/, "ws")}/v2/iex`);
      const client: Client = { socket, lastStamp: 0 };
      let subscribed = false;
      socket.on("message", (data: Buffer) => {
        if (subscribed) return onFeedFrame(client, data);
        const [message] = JSON.parse(String(data)) as { T: string; msg?: string; code?: number }[];
        if (message?.T === "success" && message.msg === "connected") {
          socket.send(JSON.stringify({ action: "auth", key: "oauth", secret: tokens[c % tokens.length] }));
        } else if (message?.T === "success" && message.msg === "authenticated") {
          socket.send(JSON.stringify({ action: "subscribe", trades: symbols, quotes: symbols }));
        } else if (message?.T === "subscription") {
          subscribed = true;
          resolve(client);
        } else {
          reject(new Error(`client ${c}: ${String(data)}`));
          socket.close();
        }
      });
      socket.on("error", reject);
      socket.on("close", () => {
        if (subscribed && measuring) closed++;
      });
    });
  }

  const connectStart = performance.now();
  for (let first = 0; first < count; first += CONNECT_PARALLEL) {
    const batch = Array.from({ length: Math.min(CONNECT_PARALLEL, count - first) }, (_, k) => open(first + k));
    clients.push(...(await Promise.all(batch)));
  }
  const connectSec = Math.round((performance.now() - connectStart) / 10) / 100;

  return {
    connectSec,
    /** Starts a window: what arrived before is forgotten. */
    startWindow(): void {
      latencies = [];
      lastArrival = new Map();
      frames = delivered = misordered = errors = closed = 0;
      for (const client of clients) client.lastStamp = 0;
      measuring = true;
    },
    delivered: () => delivered,
    /** Connections closed since the window started. */
    closed: () => closed,
    /** Ends the window, in which `messages` were offered: the rates run from the first stamp to the last arrival. */
    endWindow(messages: number): Delivery {
      measuring = false;
      let firstStamp = Number.POSITIVE_INFINITY;
      let lastAt = 0;
      for (const [stamp, at] of lastArrival) {
        if (stamp < firstStamp) firstStamp = stamp;
        if (at > lastAt) lastAt = at;
      }
      const windowSec = lastAt > 0 ? (lastAt - firstStamp) / 1e6 : 0;
      const perSec = (n: number) => (windowSec > 0 ? Math.round(n / windowSec) : 0);
      return {
        expected: messages * clients.length,
        delivered,
        frames,
        misordered,
        errors,
        closed,
        windowSec: Math.round(windowSec * 100) / 100,
        framesPerSec: perSec(frames),
        messagesPerSec: perSec(delivered),
        perClient: summarize(latencies),
        toLastClient: summarize([...lastArrival].map(([stamp, at]) => (at - stamp) / 1000)),
      };
    },
    async close(): Promise<void> {
      await Promise.all(
        clients.map(
          ({ socket }) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === WebSocket.CLOSED) return resolve();
              socket.once("close", () => resolve());
              socket.close();
              setTimeout(() => socket.terminate(), 2_000).unref();
            }),
        ),
      );
    },
  };
}

export type DataClients = Awaited<ReturnType<typeof openDataClients>>;
