/**
 * The messages the `dataFanout` part offers, the same for the service's injector (`dataInjector.ts`, written to
 * `brokerage.market_feed`) and for the bare `ws` baseline (`dataBaselineServer.ts`, sent as they are made):
 * ticks of `perTick` stream messages (stock trades and quotes of the plan's symbols, in the anchor's JSON
 * shapes), each stamped in `t` with the instant it was made, to the microsecond (an RFC 3339 string, which the
 * feed passes through untouched). Message j of a tick is stamped j µs after the tick's instant, so the stamps
 * of the whole run increase strictly: a client that sees them increase got every message once, in order.
 */
import { readFileSync } from "node:fs";

/** What one injection run offers: `ticks` ticks of `perTick` messages, one tick every `tickMs`. */
export interface InjectionPlan {
  symbols: string[];
  ticks: number;
  perTick: number;
  tickMs: number;
}

/** What an injector or the baseline reports once its last tick went out. */
export interface InjectionReport {
  messages: number;
  ticks: number;
  /** From the first tick to the end of the last one (its commit, or its last send). */
  seconds: number;
  /** How late the ticks started against their schedule (ms): a writer that could not keep up. */
  lateMs: { p50: number; max: number };
}

/** The plan of `ratePerSec` messages a second for `durationSec`, in ticks of `tickMs`. */
export function injectionPlan(o: {
  symbols: string[];
  ratePerSec: number;
  durationSec: number;
  tickMs: number;
}): InjectionPlan {
  const perTick = Math.max(1, Math.round((o.ratePerSec * o.tickMs) / 1000));
  return { symbols: o.symbols, perTick, tickMs: o.tickMs, ticks: Math.round((o.durationSec * 1000) / o.tickMs) };
}

/** Wall-clock time in µs (this process's time origin + its monotonic clock): comparable across processes. */
export const wallMicros = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

/** `micros` (epoch µs) as RFC 3339 with six decimals, e.g. `2026-11-25T15:00:00.123456Z`. */
export function stampOf(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, "0")}Z`;
}

/** The epoch µs of a stamp made by `stampOf` (NaN for anything else). */
export function microsOf(stamp: string): number {
  if (stamp.length !== 27) return Number.NaN;
  return Date.parse(`${stamp.slice(0, 23)}Z`) * 1000 + Number(stamp.slice(23, 26));
}

/** One stream message (JSON form, as `market_feed.message` holds it) with a symbol and a channel. */
export interface OfferedMessage {
  symbol: string;
  channel: "trades" | "quotes";
  message: Record<string, unknown>;
}

/**
 * The messages of tick `tick` made at `micros`: alternately a trade and a quote, the symbols in turn. Trade ids
 * are the message's number in the run (from 1).
 */
export function tickMessages(plan: InjectionPlan, tick: number, micros: number): OfferedMessage[] {
  const messages: OfferedMessage[] = [];
  for (let j = 0; j < plan.perTick; j++) {
    const k = tick * plan.perTick + j;
    const symbol = plan.symbols[Math.floor(k / 2) % plan.symbols.length] as string;
    const t = stampOf(micros + j);
    const price = Math.round((150 + Math.sin(k / 50) * 5) * 100) / 100;
    messages.push(
      k % 2 === 0
        ? {
            symbol,
            channel: "trades",
            message: { T: "t", S: symbol, i: k + 1, x: "V", p: price, s: 100, c: ["@"], z: "C", t },
          }
        : {
            symbol,
            channel: "quotes",
            message: {
              T: "q",
              S: symbol,
              bx: "V",
              bp: price - 0.01,
              bs: 3,
              ax: "V",
              ap: price + 0.01,
              as: 4,
              c: ["R"],
              z: "C",
              t,
            },
          },
    );
  }
  return messages;
}

/**
 * Runs the plan's ticks on schedule (open loop: tick k is due at k × tickMs from the start, whatever the
 * previous one cost; a late tick goes at once), each made at its start by `send(messages)`, one at a time.
 */
export async function runTicks(
  plan: InjectionPlan,
  send: (messages: OfferedMessage[]) => Promise<void> | void,
): Promise<InjectionReport> {
  const late: number[] = [];
  const start = performance.now();
  for (let tick = 0; tick < plan.ticks; tick++) {
    const wait = start + tick * plan.tickMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    late.push(Math.max(0, -wait));
    await send(tickMessages(plan, tick, wallMicros()));
  }
  late.sort((a, b) => a - b);
  return {
    messages: plan.ticks * plan.perTick,
    ticks: plan.ticks,
    seconds: Math.round(performance.now() - start) / 1000,
    lateMs: {
      p50: Math.round((late[late.length >> 1] ?? 0) * 10) / 10,
      max: Math.round((late.at(-1) ?? 0) * 10) / 10,
    },
  };
}

/** The plan the benchmark wrote to `BENCH_DATA_PLAN_FILE` for the next run. */
export const planFromFile = (): InjectionPlan =>
  JSON.parse(readFileSync(process.env.BENCH_DATA_PLAN_FILE as string, "utf8")) as InjectionPlan;

/**
 * Runs `inject` with the current plan file whenever the process gets SIGUSR2, then prints
 * `INJECTED {report}` (the benchmark reads it on the server's stdout).
 */
export function injectOnSignal(inject: (plan: InjectionPlan) => Promise<InjectionReport>): void {
  process.on("SIGUSR2", () => {
    inject(planFromFile()).then(
      (report) => process.stdout.write(`INJECTED ${JSON.stringify(report)}\n`),
      (error: Error) => process.stdout.write(`INJECTED ${JSON.stringify({ error: error.message })}\n`),
    );
  });
}
