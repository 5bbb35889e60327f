import { describe, expect, it } from "vitest";
import { integratorIdOf } from "./spokePoolEvents.ts";

describe("integratorIdOf", () => {
  const deposit = `0xad5425c6${"00".repeat(64)}`;

  it("reads the app-sdk's suffix, also before the swap marker", () => {
    expect(integratorIdOf(`${deposit}1dc0de00BE`)).toBe("0x00be");
    expect(integratorIdOf(`${deposit}1dc0debeef73c0de`)).toBe("0xbeef");
  });

  it("is null without the suffix, even when the delimiter appears inside the calldata", () => {
    expect(integratorIdOf(deposit)).toBeNull();
    expect(integratorIdOf(`0xad5425c61dc0debeef${"00".repeat(64)}`)).toBeNull();
    expect(integratorIdOf("0x")).toBeNull();
  });
});
