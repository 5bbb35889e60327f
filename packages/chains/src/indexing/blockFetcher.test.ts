/**
 * The fetcher's JSON-RPC over HTTP against a local stand-in server: ASCII answers take the latin1 path,
 * anything else is decoded as UTF-8, so node error texts keep their characters.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBlockFetcher, parseJsonBody } from "./blockFetcher.ts";
import { RpcRequestError, RpcResponseError } from "./rpcErrors.ts";

describe("parseJsonBody", () => {
  it("parses ASCII and UTF-8 bodies alike", () => {
    expect(parseJsonBody(Buffer.from('{"result":"0x2a"}'))).toEqual({ result: "0x2a" });
    expect(parseJsonBody(Buffer.from('{"message":"réverté ✓"}', "utf8"))).toEqual({ message: "réverté ✓" });
    expect(() => parseJsonBody(Buffer.from("{"))).toThrow(SyntaxError);
  });
});

describe("createBlockFetcher over HTTP", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const parsed = JSON.parse(body) as { id: number; method: string; params: { fromBlock: string }[] };
        if (!Array.isArray(parsed)) {
          // eth_getLogs, sent alone: fromBlock picks the answer.
          const log = { address: "0x01", topics: ["0x02"], data: "0x", blockNumber: "0x1", blockHash: "0x03" };
          const replies: Record<string, string> = {
            // JSON the scanner leaves to JSON.parse: a string with an escaped quote in the log's `data`.
            "0x1": JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: [log, { ...log, data: 'x"y' }] }),
            "0x2": JSON.stringify({ jsonrpc: "2.0", id: parsed.id, error: { code: -32005, message: "too many logs" } }),
            "0x3": JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: null }),
            "0x4": "<html>busy</html>",
          };
          res.end(replies[parsed.params[0]?.fromBlock ?? ""]);
          return;
        }
        const [call] = parsed;
        const reply =
          call?.method === "eth_blockNumber"
            ? { jsonrpc: "2.0", id: call.id, result: "0x10" }
            : { jsonrpc: "2.0", id: call?.id, error: { code: 3, message: "execution reverted: déjà payé" } };
        res.setHeader("content-type", "application/json; charset=utf-8");
        res.end(JSON.stringify([reply]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads results and keeps non-ASCII error texts intact", async () => {
    const fetcher = createBlockFetcher({ rpcUrl: url, batchSize: 10, concurrency: 1 });
    expect(await fetcher.blockNumber()).toBe(16n);
    await expect(fetcher.call("eth_call", [])).rejects.toThrow("execution reverted: déjà payé");
    await expect(fetcher.call("eth_call", [])).rejects.toMatchObject({ name: "RpcResponseError", code: 3 });
  });

  it("reads eth_getLogs in place, and explains replies that are not a list of logs", async () => {
    const fetcher = createBlockFetcher({ rpcUrl: url, batchSize: 10, concurrency: 1 });
    const filter = (from: string) => ({ fromBlock: from as `0x${string}`, toBlock: "0x9" as const });
    const view = await fetcher.getLogs(filter("0x1"));
    expect(view.count).toBe(2);
    expect(view.log(0)).toMatchObject({ address: "0x01", topics: ["0x02"], blockHash: "0x03" });
    expect(view.hex(1, 1)).toBeUndefined(); // the odd `data` reads as absent
    const refused = fetcher.getLogs(filter("0x2"));
    await expect(refused).rejects.toBeInstanceOf(RpcResponseError);
    await expect(refused).rejects.toMatchObject({ method: "eth_getLogs", code: -32005 });
    await expect(refused).rejects.toThrow("too many logs");
    // Replies that are no JSON-RPC answer: a response error without a code.
    await expect(fetcher.getLogs(filter("0x3"))).rejects.toMatchObject({ name: "RpcResponseError", code: undefined });
    await expect(fetcher.getLogs(filter("0x3"))).rejects.toThrow("not a list of logs");
    await expect(fetcher.getLogs(filter("0x4"))).rejects.toMatchObject({ name: "RpcResponseError", code: undefined });
    await expect(fetcher.getLogs(filter("0x4"))).rejects.toThrow("invalid JSON");
  });

  it("names the endpoint by its redacted form only", async () => {
    const keyed = `${url}/v3/SECRETKEY?apikey=SECRET2`;
    const fetcher = createBlockFetcher({ rpcUrl: keyed, batchSize: 10, concurrency: 1 });
    const error = await fetcher.call("eth_call", []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcResponseError);
    expect((error as RpcResponseError).endpoint).toBe(`${url}/…`);
    expect((error as Error).message).toContain(`RPC ${url}/… answered eth_call`);
    expect((error as Error).message).not.toContain("SECRET");

    const notHttp = (() => {
      try {
        return createBlockFetcher({ rpcUrl: "wss://node.example/ws/SECRETKEY", batchSize: 1, concurrency: 1 });
      } catch (e) {
        return e;
      }
    })();
    expect(notHttp).toBeInstanceOf(RpcRequestError);
    expect((notHttp as Error).message).toContain("wss://node.example/…");
    expect((notHttp as Error).message).not.toContain("SECRET");
  });
});
