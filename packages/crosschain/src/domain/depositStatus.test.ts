import { describe, expect, it } from "vitest";
import {
  type DepositStatusInput,
  deriveActionsSucceeded,
  deriveDepositStatus,
  isFillDeadlinePassed,
  toApiStatus,
} from "./depositStatus.ts";

const DEADLINE = 1_000_000;
const FILL_TX = "0xfeed000000000000000000000000000000000000000000000000000000000001";
const REFUND_TX = "0xbeef000000000000000000000000000000000000000000000000000000000002";
const base: DepositStatusInput = { fillDeadline: DEADLINE, message: "0x" };

describe("deriveDepositStatus", () => {
  it("an unfilled deposit before its deadline is pending (raw unfilled)", () => {
    expect(deriveDepositStatus(base, DEADLINE - 10)).toEqual({
      rawStatus: "unfilled",
      status: "pending",
      actionsSucceeded: null,
      fillTxnRef: null,
      depositRefundTxnRef: null,
    });
  });

  it("is still pending at now == fillDeadline, expired one second later", () => {
    expect(deriveDepositStatus(base, DEADLINE).status).toBe("pending");
    expect(deriveDepositStatus(base, DEADLINE + 1)).toMatchObject({ rawStatus: "expired", status: "expired" });
  });

  it("a fill wins over everything, even after the deadline or a slow-fill request", () => {
    const filled = deriveDepositStatus(
      { ...base, fill: { txHash: FILL_TX, callsFailed: false }, slowFillRequested: true },
      DEADLINE + 100,
    );
    expect(filled).toEqual({
      rawStatus: "filled",
      status: "filled",
      actionsSucceeded: null,
      fillTxnRef: FILL_TX,
      depositRefundTxnRef: null,
    });
  });

  it("a slow-fill request before the deadline", () => {
    expect(deriveDepositStatus({ ...base, slowFillRequested: true }, DEADLINE - 1).status).toBe("slowFillRequested");
    // and it expires like an unfilled deposit
    expect(deriveDepositStatus({ ...base, slowFillRequested: true }, DEADLINE + 1).status).toBe("expired");
  });

  it("a known refund makes an unfilled deposit refunded", () => {
    expect(deriveDepositStatus({ ...base, refund: { txHash: REFUND_TX } }, DEADLINE + 5000)).toEqual({
      rawStatus: "refunded",
      status: "refunded",
      actionsSucceeded: null,
      fillTxnRef: null,
      depositRefundTxnRef: REFUND_TX,
    });
  });

  it("keeps a stored status that is further along", () => {
    // the row was already marked expired/refunded by a job: a slightly earlier clock does not undo it
    expect(deriveDepositStatus({ ...base, storedStatus: "expired" }, DEADLINE - 1).status).toBe("expired");
    expect(deriveDepositStatus({ ...base, storedStatus: "refunded" }, DEADLINE + 1)).toMatchObject({
      status: "refunded",
      depositRefundTxnRef: null,
    });
    // a stored status behind the facts is overtaken
    expect(deriveDepositStatus({ ...base, storedStatus: "unfilled" }, DEADLINE + 1).status).toBe("expired");
    expect(deriveDepositStatus({ ...base, storedStatus: "filled" }, DEADLINE + 1).status).toBe("filled");
    expect(deriveDepositStatus({ ...base, storedStatus: "slowFilled" }, DEADLINE + 1).rawStatus).toBe("filled");
  });
});

describe("actionsSucceeded", () => {
  const withMessage = { ...base, message: "0xabcdef" };

  it("is null while a message-bearing deposit is not filled", () => {
    expect(deriveDepositStatus(withMessage, DEADLINE - 1).actionsSucceeded).toBeNull();
    expect(deriveDepositStatus(withMessage, DEADLINE + 1).actionsSucceeded).toBeNull();
  });

  it("is true when filled without CallsFailed, false with it", () => {
    expect(
      deriveDepositStatus({ ...withMessage, fill: { txHash: FILL_TX, callsFailed: false } }, 0).actionsSucceeded,
    ).toBe(true);
    expect(
      deriveDepositStatus({ ...withMessage, fill: { txHash: FILL_TX, callsFailed: true } }, 0).actionsSucceeded,
    ).toBe(false);
  });

  it("is null for an empty message even when filled", () => {
    expect(deriveActionsSucceeded("0x", { txHash: FILL_TX, callsFailed: true })).toBeNull();
    expect(deriveActionsSucceeded("", { txHash: FILL_TX, callsFailed: false })).toBeNull();
    expect(deriveActionsSucceeded("0x00", { txHash: FILL_TX, callsFailed: false })).toBe(true);
  });
});

describe("helpers", () => {
  it("toApiStatus maps unfilled to pending and passes the rest through", () => {
    expect(toApiStatus("unfilled")).toBe("pending");
    expect(toApiStatus("filled")).toBe("filled");
    expect(toApiStatus("slowFillRequested")).toBe("slowFillRequested");
    expect(toApiStatus("expired")).toBe("expired");
    expect(toApiStatus("refunded")).toBe("refunded");
  });

  it("isFillDeadlinePassed is strict", () => {
    expect(isFillDeadlinePassed(10, 10)).toBe(false);
    expect(isFillDeadlinePassed(10, 11)).toBe(true);
  });
});
