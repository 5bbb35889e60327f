import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createConfiguredLogger, createLogger, logsRequests, resolveLogFormat, useColors } from "./logger.ts";
import { formatLogLine } from "./pretty.ts";

const TIME = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
const ESC = "\u001b[";

function record(fields: Record<string, unknown>): string {
  return JSON.stringify({ level: 30, time: TIME, pid: 1, hostname: "h", msg: "hello", ...fields });
}

/** A pretty logger and the text it wrote. */
function prettyLogger(colors = false) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: "trace", format: "pretty", colors, destination });
  return { logger, text: () => chunks.join("") };
}

describe("formatLogLine", () => {
  it("writes time, level, where the line comes from, the message and the other fields as key=value", () => {
    const line = formatLogLine(
      record({ level: 40, service: "brokerage", component: "market-feed", symbol: "AAPL", reason: "too slow", n: 3 }),
      false,
    );
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d\.006 WARN {2}brokerage\/market-feed hello symbol=AAPL reason="too slow" n=3\n$/,
    );
    expect(line).not.toContain("pid=");
    expect(line).not.toContain("hostname=");
  });

  it("names each level", () => {
    const labels = [10, 20, 30, 40, 50, 60].map((level) => formatLogLine(record({ level }), false).split(" ")[1]);
    expect(labels).toEqual(["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]);
  });

  it("colours the level, the time and the keys only when asked", () => {
    const plain = formatLogLine(record({ level: 50, job: "indexer", chainId: 1 }), false);
    expect(plain).not.toContain(ESC);
    const coloured = formatLogLine(record({ level: 50, job: "indexer", chainId: 1 }), true);
    expect(coloured).toContain(`${ESC}31mERROR${ESC}0m`);
    expect(coloured).toContain(`${ESC}36mindexer${ESC}0m`);
    expect(coloured).toContain(`${ESC}2mchainId=${ESC}0m1`);
    // Without its escapes, the coloured line is the plain one.
    const strip = (text: string) =>
      text
        .split(ESC)
        .map((part, k) => (k === 0 ? part : part.replace(/^[0-9;]*m/, "")))
        .join("");
    expect(strip(coloured)).toBe(plain);
  });

  it("writes an object field as compact JSON, and an access line as the request itself", () => {
    expect(formatLogLine(record({ applied: ["kernel/1", "wearables/2"] }), false)).toContain(
      'applied=["kernel/1","wearables/2"]',
    );
    const access = formatLogLine(
      record({
        msg: "request",
        reqId: "r1",
        req: { method: "GET", url: "/v2/orders" },
        ip: "127.0.0.1",
        status: 200,
        ms: 4,
      }),
      false,
    );
    expect(access).toMatch(/ INFO {2}GET \/v2\/orders 200 4ms ip=127\.0\.0\.1\n$/);
  });

  it("shows the first items of a long array and how many more", () => {
    const applied = ["a/1", "a/2", "b/1", "b/2", "c/1", "c/2", "c/3"];
    expect(formatLogLine(record({ applied }), false)).toContain('applied=["a/1","a/2","b/1","b/2",…+3]\n');
    expect(formatLogLine(record({ applied: applied.slice(0, 5) }), false)).toContain(
      'applied=["a/1","a/2","b/1","b/2","c/1"]\n',
    );
  });

  it("passes a line that is not JSON through", () => {
    expect(formatLogLine("not json", false)).toBe("not json\n");
  });
});

describe("a pretty logger", () => {
  it("writes an error's message on its line and a short stack under it", () => {
    const { logger, text } = prettyLogger();
    const error = new TypeError("bad value\nsecond line");
    logger.error({ err: error, chainId: 10 }, "refresh failed");
    const [first, ...rest] = text().trimEnd().split("\n");
    expect(first).toMatch(/ ERROR refresh failed: bad value \(TypeError\) chainId=10$/);
    expect(rest[0]).toBe("    second line");
    const frames = rest.filter((l) => l.trim().startsWith("at "));
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.length).toBeLessThanOrEqual(4);
  });

  it("adds a system error's code to its message", () => {
    const { logger, text } = prettyLogger();
    logger.warn({ err: Object.assign(new Error("connect refused"), { code: "ECONNREFUSED" }) }, "rpc down");
    expect(text().split("\n")[0]).toMatch(/ WARN {2}rpc down: connect refused \(ECONNREFUSED\)$/);
  });

  it("keeps a cause's message and leaves its frames out", () => {
    const { logger, text } = prettyLogger();
    logger.warn({ err: new Error("outer", { cause: new Error("inner") }) }, "failed");
    const out = text();
    expect(out).toContain("caused by: Error: inner");
    expect(out.split("caused by:")[1]).not.toMatch(/\n\s+at /);
  });

  it("shows nothing that the JSON line would not: the redaction serializers still apply", () => {
    const { logger, text } = prettyLogger();
    const keyed = "https://eth.example/v3/SECRETKEY?apikey=SECRET2";
    logger.error({ err: Object.assign(new Error(`connect failed to ${keyed}`), { url: keyed }) }, "rpc down");
    logger.info({ req: { method: "GET", url: "/x?apikey=SECRET3", headers: {} }, status: 200, ms: 1 }, "request");
    logger.info({ user: { password: "SECRET4", apiKey: "SECRET5" } }, "login");
    const out = text();
    expect(out).not.toMatch(/SECRET/);
    expect(out).toContain("connect failed to https://eth.example/…");
    expect(out).toContain("GET /x?apikey=[REDACTED] 200 1ms");
    expect(out).toContain('user={"password":"[REDACTED]","apiKey":"[REDACTED]"}');
  });
});

describe("createConfiguredLogger", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  const base = { logLevel: "info" as const, logRequests: undefined };

  it("is pretty on a terminal and JSON otherwise, unless LOG_FORMAT says", () => {
    expect(resolveLogFormat("auto", tty)).toBe("pretty");
    expect(resolveLogFormat("auto", pipe)).toBe("json");
    expect(resolveLogFormat("json", tty)).toBe("json");
    expect(resolveLogFormat("pretty", pipe)).toBe("pretty");
  });

  it("colours a terminal's lines unless NO_COLOR is set (to anything but empty)", () => {
    expect(useColors({}, tty)).toBe(true);
    expect(useColors({ NO_COLOR: "1" }, tty)).toBe(false);
    expect(useColors({ NO_COLOR: "" }, tty)).toBe(true);
    expect(useColors({}, pipe)).toBe(false);
  });

  it("logs requests in JSON, and at a terminal only when asked (LOG_REQUESTS, or LOG_LEVEL=debug)", () => {
    expect(logsRequests(createConfiguredLogger({ ...base, logFormat: "auto" }, {}, pipe))).toBe(true);
    expect(logsRequests(createConfiguredLogger({ ...base, logFormat: "auto" }, {}, tty))).toBe(false);
    expect(logsRequests(createConfiguredLogger({ ...base, logFormat: "pretty", logLevel: "debug" }, {}, tty))).toBe(
      true,
    );
    expect(logsRequests(createConfiguredLogger({ ...base, logFormat: "pretty", logRequests: true }, {}, tty))).toBe(
      true,
    );
    expect(logsRequests(createConfiguredLogger({ ...base, logFormat: "json", logRequests: false }, {}, pipe))).toBe(
      false,
    );
    // Children (a service's, a request's) follow their root.
    const child = createConfiguredLogger({ ...base, logFormat: "pretty" }, {}, tty).child({ service: "x" });
    expect(logsRequests(child)).toBe(false);
    expect(logsRequests(createLogger({ level: "warn" }))).toBe(false);
  });
});
