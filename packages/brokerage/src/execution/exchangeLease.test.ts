/**
 * One exchange writer at a time: a writer whose lease another holder took commits nothing (the lease is
 * checked inside every write), and takes over again once the lease is free.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTradingHost, type TradingHost } from "../testing/tradingHost.ts";

let host: TradingHost;
beforeAll(async () => {
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
});

it("executes nothing while another writer holds the lease, then resumes", async () => {
  const { paper: client } = await host.createTrader();
  // Wait for the writer to hold the lease, then hand it to "another instance" for an hour.
  await host.waitForOrder(
    client,
    (
      await client.call("POST", "/v2/orders", {
        symbol: "KO",
        qty: "1",
        side: "buy",
        type: "market",
        time_in_force: "day",
      })
    ).body.id,
    (o) => o.status === "filled",
  );
  await host.db.query(
    "UPDATE brokerage.exchange_leases SET holder = 'another-instance', expires_at = now() + interval '1 hour'",
  );
  const placed = await client.call("POST", "/v2/orders", {
    symbol: "KO",
    qty: "1",
    side: "buy",
    type: "market",
    time_in_force: "day",
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect((await client.call("GET", `/v2/orders/${placed.body.id}`)).body.status).toBe("accepted");
  const [pending] = await host.db.query<{ n: string }>(
    "SELECT count(*) AS n FROM brokerage.order_commands WHERE done_at IS NULL",
  );
  expect(Number(pending?.n)).toBe(1);

  await host.db.query("DELETE FROM brokerage.exchange_leases");
  const done = await host.waitForOrder(client, placed.body.id, (o) => o.status === "filled");
  expect(done.filled_qty).toBe("1");
});
