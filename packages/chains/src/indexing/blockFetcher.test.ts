/**
 * The fetcher's JSON-RPC over HTTP against a local stand-in server: ASCII answers take the latin1 path,
 * anything else is decoded as UTF-8, so node error texts keep their characters.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBlockFetcher, parseJsonBody } from "./blockFetcher.ts";

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
        const [call] = JSON.parse(body) as { id: number; method: string }[];
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
  });
});
