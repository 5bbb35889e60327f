import { describe, expect, it } from "vitest";
import { copyHexField, createCopyLines } from "./copyText.ts";

describe("copyHexField", () => {
  it("writes bytea's hex form with COPY's backslash escaped, with or without 0x", () => {
    expect(copyHexField("0xdead")).toBe("\\\\xdead");
    expect(copyHexField("beef")).toBe("\\\\xbeef");
  });
});

describe("createCopyLines", () => {
  it("keeps every line, in order, across growth of its buffer", () => {
    const lines = createCopyLines(8);
    const expected: string[] = [];
    for (let i = 0; i < 500; i++) {
      const line = `${i}\t${copyHexField(i.toString(16).padStart(64, "0"))}\n`;
      lines.push(line);
      expected.push(line);
    }
    expect(lines.length).toBe(expected.join("").length);
    expect(lines.bytes().toString("latin1")).toBe(expected.join(""));
  });

  it("is empty until a line is pushed", () => {
    const lines = createCopyLines();
    expect(lines.length).toBe(0);
    expect(lines.bytes().length).toBe(0);
  });
});
