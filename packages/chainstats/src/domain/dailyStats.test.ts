import { describe, expect, it } from "vitest";
import { type DailyRow, dailyRecords, divideRounded } from "./dailyStats.ts";

const row: DailyRow = {
  day: "2019-02-01",
  block_count: "3",
  gas_limit_sum: "24004081", // 8001360.33…
  gas_used_sum: "20000000",
  size_sum: "3001",
  tx_count: "42",
  block_time_sum: "53",
  block_time_count: "3",
};

describe("divideRounded", () => {
  it("rounds half up", () => {
    expect(divideRounded(5n, 2n)).toBe("3");
    expect(divideRounded(7n, 3n)).toBe("2");
    expect(divideRounded(53n, 3n, 2)).toBe("17.67");
    expect(divideRounded(1n, 3n, 4)).toBe("0.3333");
    expect(divideRounded(2n, 3n, 4)).toBe("0.6667");
    expect(divideRounded(0n, 3n, 2)).toBe("0.00");
    expect(() => divideRounded(1n, 0n)).toThrow();
  });
});

describe("dailyRecords", () => {
  it("formats each action like Etherscan", () => {
    const base = { UTCDate: "2019-02-01", unixTimeStamp: "1548979200" };
    expect(dailyRecords("dailyavggaslimit", [row])).toEqual([{ ...base, gasLimit: "8001360" }]);
    expect(dailyRecords("dailygasused", [row])).toEqual([{ ...base, gasUsed: "20000000" }]);
    expect(dailyRecords("dailyblkcount", [row])).toEqual([{ ...base, blockCount: 3 }]);
    expect(dailyRecords("dailyavgblocksize", [row])).toEqual([{ ...base, blockSize_bytes: 1000 }]);
    expect(dailyRecords("dailyavgblocktime", [row])).toEqual([{ ...base, blockTime_sec: "17.67" }]);
    expect(dailyRecords("dailytx", [row])).toEqual([{ ...base, transactionCount: 42 }]);
    expect(dailyRecords("dailynetutilization", [row])).toEqual([{ ...base, networkUtilization: "0.8332" }]);
  });

  it("skips days without blocks, and block times without a known parent", () => {
    expect(dailyRecords("dailyavggaslimit", [{ ...row, block_count: "0" }])).toEqual([]);
    expect(dailyRecords("dailyavgblocktime", [{ ...row, block_time_count: "0", block_time_sum: "0" }])).toEqual([]);
  });
});
