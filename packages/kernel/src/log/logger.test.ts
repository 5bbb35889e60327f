import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

const KEYED_URL = "https://eth.example/v3/SECRETKEY?apikey=SECRET2";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ destination }) };
}

/** An error as an RPC client throws it: the endpoint in its message, so in its stack too, and in a field. */
class EndpointError extends Error {
  override name = "EndpointError" as const;
  url = KEYED_URL;
}

describe("createLogger", () => {
  it("logs an error's message, stack, properties and cause without the keys of the URLs in them", () => {
    const { lines, logger } = capture();
    const cause = new Error(`connect failed to ${KEYED_URL}`);
    const error = new EndpointError(`HTTP request failed.\n\nURL: ${KEYED_URL}`, { cause });
    logger.warn({ err: error }, "refresh failed");
    logger.warn({ err: `plain text naming ${KEYED_URL}` }, "refresh failed");

    const text = lines.join("");
    expect(text).not.toMatch(/SECRET/);
    const [logged, plain] = lines.map((l) => JSON.parse(l));
    expect(logged.err.type).toBe("EndpointError");
    expect(logged.err.message).toContain("URL: https://eth.example/…");
    expect(logged.err.message).toContain("connect failed to https://eth.example/…");
    expect(logged.err.stack).toContain("EndpointError: HTTP request failed.");
    expect(logged.err.url).toBe("https://eth.example/…");
    expect(plain.err).toBe("plain text naming https://eth.example/…");
  });
});
