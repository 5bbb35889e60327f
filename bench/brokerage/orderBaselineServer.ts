/**
 * The baseline of `POST /v2/orders`: a minimal Fastify route on the trading benchmarks' database, on the driver
 * directly (`pg` pool, or the PGlite client): it reads the bearer token's live account with the service's
 * statement (`ACCOUNT_FOR_TOKEN_SQL`; every trading request authenticates) and inserts the order row the
 * service would insert for the same limit order, with the repository's own statement, in one transaction.
 * No schema, no account lock, no buying-power check, no command for the writer, no re-read: what placing an
 * order costs at the least. Reads the assets from `BENCH_TRADING_FILE`. Prints READY {url, pid}.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { ACCOUNT_FOR_TOKEN_SQL } from "@platform/brokerage";
import Fastify from "fastify";
import { createOrdersRepository, type NewOrderRow } from "../../packages/brokerage/src/store/ordersRepository.ts";
import { asQueryable, openBaselineDriver, serveBaseline } from "../lib/baselineServer.ts";
import { TRADING_PGLITE_DIR, type TradingData, tradingDatabaseUrl } from "./tradingDatabase.ts";

const { assets } = JSON.parse(readFileSync(process.env.BENCH_TRADING_FILE as string, "utf8")) as TradingData;
const assetOf = new Map(assets.map((a) => [a.symbol, a]));

const driver = await openBaselineDriver(tradingDatabaseUrl(), TRADING_PGLITE_DIR);
const orders = createOrdersRepository(asQueryable(driver.query));

interface LimitOrderBody {
  symbol: string;
  qty: string;
  side: "buy" | "sell";
  type: string;
  time_in_force: string;
  limit_price: string;
}

const app = Fastify();
app.post("/v2/orders", async (req, reply) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const [account] = (await driver.query(ACCOUNT_FOR_TOKEN_SQL.live, [createHash("sha256").update(token).digest()])) as {
    id: string;
  }[];
  if (!account) return reply.code(401).send({ code: 40110000, message: "request is not authorized" });
  const body = req.body as LimitOrderBody;
  const asset = assetOf.get(body.symbol);
  if (!asset) return reply.code(422).send({ code: 42210000, message: `asset "${body.symbol}" not found` });
  const id = randomUUID();
  const row: NewOrderRow = {
    id,
    account_id: account.id,
    client_order_id: id,
    symbol: asset.symbol,
    asset_id: asset.id,
    asset_class: asset.class,
    side: body.side,
    type: body.type,
    time_in_force: body.time_in_force,
    order_class: "simple",
    qty: body.qty,
    notional: null,
    limit_price: body.limit_price,
    stop_price: null,
    trail_price: null,
    trail_percent: null,
    extended_hours: false,
    opens_short: false,
    hold_price: body.limit_price,
    status: "accepted",
    parent_id: null,
    replaces: null,
    at: new Date(),
    expires_at: null,
  };
  await driver.transaction(async (tx) => {
    await orders.insert(tx, row);
  });
  return row;
});
// The pid of this process (tsx runs it in a child of the one the benchmark spawned), for its CPU time.
await serveBaseline(app, driver, { pid: String(process.pid) });
