/**
 * What the exchange writer's ledger must satisfy in every committed state, read back from the database
 * (the kill test checks it after every SIGKILL and at the end). Each broken rule is returned as a line
 * naming the order or account, so a failure shows all of them at once:
 * - orders: filled_qty and filled_value are the sums of their FILL activities (value exactly, 18 decimals),
 *   never above qty, and the status agrees (`filled` iff all of qty filled, none for new or rejected ones);
 *   nothing waits in accepted/pending_* with no command left to move it;
 * - trade events: exactly one fill/partial_fill event per FILL activity (same execution id, qty, price),
 *   position_qty the running position, at most one `new` (first, when it filled), and one terminal event,
 *   last, iff the order ended; an account's events (by id) never go back in time;
 * - accounts: execution ids unique; cash = deposits − Σ buys + Σ sells (each fill's qty × price truncated to
 *   1e-9, as the ledger books it); positions = Σ signed fills, no row at zero; an account without margin
 *   (multiplier 1) never below zero cash nor short.
 */
import type { Queryable } from "@platform/kernel";

const TERMINAL_EVENT: Record<string, string> = {
  filled: "fill",
  canceled: "canceled",
  expired: "expired",
  rejected: "rejected",
  replaced: "replaced",
  done_for_day: "done_for_day",
};
const TERMINAL_EVENTS = new Set([...Object.values(TERMINAL_EVENT)]);
const WAITING = new Set(["accepted", "pending_new", "pending_cancel", "pending_replace"]);

/** A decimal string in units of 10^-scale (exact; the database's numerics have at most 18 decimals). */
function units(decimal: string | null, scale: number): bigint {
  if (decimal === null) return 0n;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) throw new TypeError(`not a decimal: ${decimal}`);
  const fraction = m[3] ?? "";
  if (fraction.replace(/0+$/, "").length > scale) throw new RangeError(`${decimal} has more than ${scale} decimals`);
  const value = BigInt(m[2] as string) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, "0") || "0");
  return m[1] === "-" ? -value : value;
}
const n9 = (d: string | null) => units(d, 9);

interface OrderFacts {
  id: string;
  account_id: string;
  symbol: string;
  side: string;
  qty: string | null;
  notional: string | null;
  filled_qty: string;
  filled_value: string;
  status: string;
  replaces: string | null;
}
interface FillActivity {
  account_id: string;
  order_id: string;
  execution_id: string;
  type: string;
  qty: string;
  price: string;
  cum_qty: string;
}
interface TradeEvent {
  id: string;
  account_id: string;
  event: string;
  at: Date;
  order_id: string;
  execution_id: string | null;
  price: string | null;
  qty: string | null;
  position_qty: string | null;
}

/** The broken rules of the ledger as it is now; `final`: every command must also be done. */
export async function ledgerViolations(db: Queryable, { final = false } = {}): Promise<string[]> {
  const bad: string[] = [];
  const [accounts, orders, fills, events, pending, positions] = await Promise.all([
    db.query<{ id: string; cash: string; multiplier: string; deposits: string }>(
      `SELECT a.id, a.cash, a.max_margin_multiplier AS multiplier,
         (SELECT coalesce(sum(net_amount), 0) FROM brokerage.activities d WHERE d.account_id = a.id AND d.activity_type <> 'FILL') AS deposits
       FROM brokerage.accounts a`,
    ),
    db.query<OrderFacts>(
      "SELECT id, account_id, symbol, side, qty, notional, filled_qty, filled_value, status, replaces FROM brokerage.orders",
    ),
    db.query<FillActivity>(
      `SELECT account_id, order_id, execution_id, type, qty, price, cum_qty FROM brokerage.activities
       WHERE activity_type = 'FILL' ORDER BY cum_qty`,
    ),
    db.query<TradeEvent>(
      "SELECT id, account_id, event, at, order_id, execution_id, price, qty, position_qty FROM brokerage.trade_events ORDER BY id",
    ),
    db.query<{ order_id: string; replaces: string | null }>(
      `SELECT c.order_id, o.replaces FROM brokerage.order_commands c JOIN brokerage.orders o ON o.id = c.order_id
       WHERE c.done_at IS NULL`,
    ),
    db.query<{ account_id: string; symbol: string; qty: string }>(
      "SELECT account_id, symbol, qty FROM brokerage.positions",
    ),
  ]);
  if (final && pending.length > 0) bad.push(`${pending.length} order commands not done`);
  const awaited = new Set(pending.flatMap((c) => [c.order_id, ...(c.replaces ? [c.replaces] : [])]));

  const fillsOf = group(fills, (f) => f.order_id);
  const eventsOf = group(events, (e) => e.order_id);
  for (const o of orders) {
    const own = fillsOf.get(o.id) ?? [];
    const filled = own.reduce((s, f) => s + n9(f.qty), 0n);
    const value = own.reduce((s, f) => s + n9(f.qty) * n9(f.price), 0n);
    const tag = `order ${o.id} (${o.status})`;
    if (filled !== n9(o.filled_qty)) bad.push(`${tag}: filled_qty ${o.filled_qty} but its fills sum to ${filled}e-9`);
    if (value !== units(o.filled_value, 18))
      bad.push(`${tag}: filled_value ${o.filled_value} ≠ Σ qty×price ${value}e-18`);
    let running = 0n;
    for (const f of own) {
      running += n9(f.qty);
      if (n9(f.cum_qty) !== running) bad.push(`${tag}: fill ${f.execution_id} cum_qty ${f.cum_qty} ≠ ${running}e-9`);
    }
    if (o.qty !== null) {
      if (filled > n9(o.qty)) bad.push(`${tag}: overfilled, ${o.filled_qty} of ${o.qty}`);
      if ((o.status === "filled") !== (filled === n9(o.qty))) bad.push(`${tag}: ${o.filled_qty} of ${o.qty} filled`);
    } else if (o.status === "filled" && filled === 0n) bad.push(`${tag}: notional order filled without fills`);
    if (o.status === "partially_filled" && filled === 0n) bad.push(`${tag}: partially filled without fills`);
    if (["new", "accepted", "pending_new", "rejected"].includes(o.status) && filled !== 0n)
      bad.push(`${tag}: has fills`);
    if (WAITING.has(o.status) && !awaited.has(o.id)) bad.push(`${tag}: stuck, no command left for it`);
    checkOrderEvents(o, own, eventsOf.get(o.id) ?? [], bad);
  }

  const byId = new Map(orders.map((o) => [o.id, o]));
  checkPositionsInEvents(events, byId, bad);
  const byAccount = group(fills, (f) => f.account_id);
  for (const a of accounts) {
    const own = byAccount.get(a.id) ?? [];
    const ids = new Set(own.map((f) => f.execution_id));
    if (ids.size !== own.length) bad.push(`account ${a.id}: ${own.length - ids.size} execution ids used twice`);
    let cash = n9(a.deposits);
    const position = new Map<string, bigint>();
    for (const f of own) {
      const order = byId.get(f.order_id) as OrderFacts;
      const qty = n9(f.qty);
      const amount = (qty * n9(f.price)) / 1_000_000_000n;
      cash += order.side === "buy" ? -amount : amount;
      position.set(order.symbol, (position.get(order.symbol) ?? 0n) + (order.side === "buy" ? qty : -qty));
    }
    if (n9(a.cash) !== cash) bad.push(`account ${a.id}: cash ${a.cash} but deposits and fills give ${cash}e-9`);
    if (a.multiplier === "1" && n9(a.cash) < 0n) bad.push(`account ${a.id} (no margin): cash ${a.cash} below zero`);
    const rows = positions.filter((p) => p.account_id === a.id);
    for (const p of rows) {
      if (n9(p.qty) !== (position.get(p.symbol) ?? 0n))
        bad.push(`account ${a.id}: position ${p.symbol} ${p.qty} ≠ Σ fills ${position.get(p.symbol) ?? 0n}e-9`);
      if (a.multiplier === "1" && n9(p.qty) < 0n) bad.push(`account ${a.id} (no margin): short ${p.symbol} ${p.qty}`);
    }
    for (const [symbol, qty] of position) {
      if (qty !== 0n && !rows.some((p) => p.symbol === symbol)) bad.push(`account ${a.id}: position ${symbol} missing`);
    }
  }
  return bad;
}

/** The order's events: one per fill, at most one `new`, one terminal event, last, iff the order ended. */
function checkOrderEvents(o: OrderFacts, fills: FillActivity[], events: TradeEvent[], bad: string[]): void {
  const tag = `order ${o.id} (${o.status})`;
  const fillEvents = events.filter((e) => e.event === "fill" || e.event === "partial_fill");
  const byExecution = new Map(fillEvents.map((e) => [e.execution_id, e]));
  if (byExecution.size !== fillEvents.length) bad.push(`${tag}: two fill events with one execution id`);
  if (fillEvents.length !== fills.length)
    bad.push(`${tag}: ${fillEvents.length} fill events for ${fills.length} fills`);
  for (const f of fills) {
    const e = byExecution.get(f.execution_id);
    if (!e || e.event !== f.type || n9(e.qty) !== n9(f.qty) || n9(e.price) !== n9(f.price))
      bad.push(`${tag}: fill ${f.execution_id} (${f.type} ${f.qty} @ ${f.price}) has no matching event`);
  }
  const news = events.filter((e) => e.event === "new");
  if (news.length > 1) bad.push(`${tag}: several new events`);
  if (fillEvents.length > 0 && (news.length === 0 || news[0] !== events[0]))
    bad.push(`${tag}: fills before its new event`);
  const terminal = events.filter((e) => TERMINAL_EVENTS.has(e.event));
  const expected = TERMINAL_EVENT[o.status];
  if (expected === undefined) {
    if (terminal.length > 0) bad.push(`${tag}: open, but has a ${terminal[0]?.event} event`);
  } else if (terminal.length !== 1 || terminal[0]?.event !== expected || events.at(-1) !== terminal[0]) {
    bad.push(`${tag}: terminal events [${terminal.map((e) => e.event)}], last ${events.at(-1)?.event}`);
  }
}

/** Each fill event's position_qty is the account's position after it, replaying fills in event order. */
function checkPositionsInEvents(events: TradeEvent[], orders: Map<string, OrderFacts>, bad: string[]): void {
  const position = new Map<string, bigint>();
  const lastAt = new Map<string, number>();
  for (const e of events) {
    const at = e.at.getTime();
    if (at < (lastAt.get(e.account_id) ?? 0)) bad.push(`event ${e.id}: earlier than the account's previous event`);
    lastAt.set(e.account_id, at);
    if (e.event !== "fill" && e.event !== "partial_fill") continue;
    const order = orders.get(e.order_id) as OrderFacts;
    const key = `${e.account_id}|${order.symbol}`;
    const next = (position.get(key) ?? 0n) + (order.side === "buy" ? n9(e.qty) : -n9(e.qty));
    position.set(key, next);
    if (n9(e.position_qty) !== next) bad.push(`event ${e.id}: position_qty ${e.position_qty}, fills give ${next}e-9`);
  }
}

function group<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}
