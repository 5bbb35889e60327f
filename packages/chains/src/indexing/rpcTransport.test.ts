import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcRequestError } from "./rpcErrors.ts";
import { createRpcTransport } from "./rpcTransport.ts";

let server: Server;
let url: string;
const big = "x".repeat(300_000);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const { mode } = JSON.parse(body) as { mode: string };
      if (mode === "length") {
        res.setHeader("content-length", Buffer.byteLength(big));
        res.end(big);
      } else if (mode === "chunked") {
        for (let i = 0; i < big.length; i += 65_536) res.write(big.slice(i, i + 65_536));
        res.end();
      } else if (mode === "status") {
        res.statusCode = 503;
        res.end("busy");
      } else if (mode === "cut") {
        res.setHeader("content-length", 1000);
        res.write("partial");
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (mode === "auth") {
        res.end(req.headers.authorization ?? "none");
      }
      // "silent": never answers
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc?key=1`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("createRpcTransport", () => {
  const post = () => createRpcTransport({ url, timeoutMs: 300 });

  it("reads replies with and without a content-length, on a kept-alive connection", async () => {
    const send = post();
    for (const mode of ["length", "chunked", "length"]) {
      expect((await send(JSON.stringify({ mode }))).toString()).toBe(big);
    }
  });

  it("sends the URL's credentials as basic auth", async () => {
    const u = new URL(url);
    u.username = "user";
    u.password = "p@ss";
    const reply = await createRpcTransport({ url: u.toString(), timeoutMs: 300 })(JSON.stringify({ mode: "auth" }));
    expect(reply.toString()).toBe(`Basic ${Buffer.from("user:p@ss").toString("base64")}`);
  });

  it("rejects with RpcRequestError on HTTP errors, cut replies, silence and refused connections", async () => {
    const send = post();
    const origin = new URL(url).origin;
    await expect(send(JSON.stringify({ mode: "status" }))).rejects.toMatchObject({
      name: "RpcRequestError",
      status: 503,
      endpoint: `${origin}/…`,
    });
    await expect(send(JSON.stringify({ mode: "cut" }))).rejects.toBeInstanceOf(RpcRequestError);
    await expect(send(JSON.stringify({ mode: "silent" }))).rejects.toThrow(/did not answer in 300 ms/);
    const refused = createRpcTransport({ url: "http://127.0.0.1:1/", timeoutMs: 300 });
    await expect(refused("{}")).rejects.toMatchObject({ name: "RpcRequestError", status: undefined });
    // Still usable after all that.
    expect((await send(JSON.stringify({ mode: "length" }))).length).toBe(big.length);
  });
});
