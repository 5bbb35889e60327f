import { describe, expect, it } from "vitest";
import { LOG_FIELD, scanLogsReply } from "./logsView.ts";

const h = (n: number, digits = 64) => `0x${n.toString(16).padStart(digits, "0")}`;
const log = (k: number) => ({
  address: h(0xaaa, 40),
  topics: [h(1), h(k), h(3)],
  data: `0x${"ab".repeat(k)}`,
  blockNumber: h(k, 1),
  blockHash: h(100 + k),
  blockTimestamp: h(1_700_000_000 + k, 1),
  transactionHash: h(200 + k),
  transactionIndex: "0x0",
  logIndex: h(k, 1),
  removed: false,
});

const scan = (text: string) => scanLogsReply(Buffer.from(text));

describe("scanLogsReply", () => {
  it("reads what JSON.parse reads, whatever the layout and key order", () => {
    const logs = [log(1), log(2), { ...log(3), topics: [] }, { ...log(4), topics: [h(1), h(2), h(3), h(4)] }];
    const reversed = logs.map((l) => Object.fromEntries(Object.entries(l).reverse()));
    for (const text of [
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: logs }),
      JSON.stringify({ result: reversed, id: "x", jsonrpc: "2.0" }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: logs }, null, 2),
      ` \r\n\t${JSON.stringify({ jsonrpc: "2.0", id: 1, result: logs }, null, "\t")}\n`,
    ]) {
      const view = scan(text);
      expect(view?.count).toBe(logs.length);
      for (let i = 0; i < logs.length; i++) expect(view?.log(i)).toEqual(logs[i]);
    }
  });

  it("skips members it does not know, however nested, and strings with escapes", () => {
    const extra = {
      ...log(1),
      'odd \\"key\\"': 1,
      nested: { a: [1, { b: 'x\\"}]' }, null], c: true },
      note: "tab\\t and \\\\ and \\u0041",
      n: -1.5e3,
    };
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, meta: { a: [1, 2] }, result: [extra, log(2)] });
    const view = scan(text);
    expect(view?.count).toBe(2);
    expect(view?.log(0)).toEqual(log(1));
    expect(view?.log(1)).toEqual(log(2));
  });

  it("reports fields that are not 0x-hex as absent, and logs with too many topics", () => {
    const view = scan(
      JSON.stringify({
        result: [
          { ...log(1), data: null, blockHash: "0xzz", transactionHash: "ab", logIndex: 7, blockTimestamp: "0x1\n" },
          { ...log(2), topics: [h(1), h(2), h(3), h(4), h(5)], removed: true },
        ],
      }),
    );
    expect(view?.count).toBe(2);
    for (const f of [LOG_FIELD.data, LOG_FIELD.blockHash, LOG_FIELD.transactionHash, LOG_FIELD.logIndex]) {
      expect(view?.start(0, f)).toBe(-1);
      expect(view?.hex(0, f)).toBeUndefined();
    }
    expect(view?.hex(0, LOG_FIELD.blockTimestamp)).toBeUndefined();
    expect(view?.hex(0, LOG_FIELD.address)).toBe(h(0xaaa, 40));
    expect(view?.topicCount(1)).toBe(255);
    expect(view?.removed(1)).toBe(true);
    expect(view?.removed(0)).toBe(false);
  });

  it("compares a field of two logs", () => {
    const view = scan(JSON.stringify({ result: [log(1), { ...log(2), blockHash: h(101) }, log(3)] }));
    expect(view?.same(0, 1, LOG_FIELD.blockHash)).toBe(true);
    expect(view?.same(1, 2, LOG_FIELD.blockHash)).toBe(false);
    expect(view?.same(0, 1, LOG_FIELD.blockNumber)).toBe(false);
  });

  it("grows past its first guess of the number of logs", () => {
    const logs = Array.from({ length: 300 }, (_, k) => ({ ...log(k + 1), data: "0x" }));
    const view = scan(JSON.stringify({ result: logs }));
    expect(view?.count).toBe(300);
    expect(view?.log(299)).toEqual(logs[299]);
  });

  it("gives up on error replies and on anything that is not a reply with a list of logs", () => {
    for (const text of [
      JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32005, message: "range too large" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: null }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x1" }),
      JSON.stringify({ jsonrpc: "2.0", id: 1 }),
      JSON.stringify([{ jsonrpc: "2.0", id: 1, result: [] }]),
      JSON.stringify({ result: [1, 2] }),
      '{"result": [',
      '{"result": []} trailing',
      "",
    ]) {
      expect(scan(text), text).toBeUndefined();
    }
    expect(scan('{"result":[]}')?.count).toBe(0);
    // Escaped keys are read for what they say.
    expect(scan('{"res\\u0075lt": [{"\\u0061ddress": "0x01"}]}')?.hex(0, LOG_FIELD.address)).toBe("0x01");
  });
});
