/**
 * The `dataFanout` baseline: a bare `ws` server on `/v2/iex` that answers the data stream's handshake without
 * checking anything (`connected`, `authenticated` on any `auth`, the subscription echoed on `subscribe`) and,
 * on SIGUSR2, makes the plan in `BENCH_DATA_PLAN_FILE` in-process (the same messages, ticks and timestamps as
 * the service's injector: `dataFeedMessages.ts`) and sends every tick as one JSON array frame to every
 * subscribed client, then prints `INJECTED {report}`. What the service adds on top of this is the measure:
 * the database (insert, NOTIFY, the hub's read), authentication, slots and per-subscription routing.
 * Prints READY {url, pid}.
 */
import { createServer } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { injectOnSignal, runTicks } from "./dataFeedMessages.ts";

const frame = (messages: unknown[]) => Buffer.from(JSON.stringify(messages));
const subscribed = new Set<WebSocket>();

const server = createServer();
const wss = new WebSocketServer({ server, path: "/v2/iex" });
wss.on("connection", (socket) => {
  socket.send(frame([{ T: "success", msg: "connected" }]), { binary: false });
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { action?: string; trades?: string[]; quotes?: string[] };
    if (message.action === "auth") socket.send(frame([{ T: "success", msg: "authenticated" }]), { binary: false });
    if (message.action === "subscribe") {
      subscribed.add(socket);
      const subscription = { T: "subscription", trades: message.trades ?? [], quotes: message.quotes ?? [] };
      socket.send(frame([subscription]), { binary: false });
    }
  });
  socket.on("close", () => subscribed.delete(socket));
});

injectOnSignal((plan) =>
  runTicks(plan, (messages) => {
    const bytes = frame(messages.map((m) => m.message));
    for (const socket of subscribed) socket.send(bytes, { binary: false });
  }),
);

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: String(process.pid) })}\n`);
});
process.on("SIGTERM", () => {
  for (const socket of wss.clients) socket.terminate();
  wss.close();
  server.close(() => process.exit(0));
});
