import { isMessageEmpty } from "./relayHash.ts";

/**
 * Deposit status derivation (what the indexer stores and `/deposit/status` reports), as a pure function of
 * the deposit row, the observed fill / slow-fill / refund facts and the current time.
 *
 * Precedence: a fill is final (`filled`, whatever its fill type); else a known refund (`refunded`); else a
 * passed fill deadline (`expired`, from unfilled or slow-fill-requested); else a slow-fill request
 * (`slowFillRequested`); else `unfilled`, which the status API reports as `pending`.
 */

/** Status values as stored by the indexer (and returned raw by `/deposits`). */
export type RawDepositStatus = "unfilled" | "filled" | "slowFillRequested" | "slowFilled" | "expired" | "refunded";

/** Status values of `/deposit/status` (`unfilled` is reported as `pending`). */
export type ApiDepositStatus = "pending" | "filled" | "slowFillRequested" | "slowFilled" | "expired" | "refunded";

/** Map a stored status to the `/deposit/status` value. */
export function toApiStatus(raw: RawDepositStatus): ApiDepositStatus {
  return raw === "unfilled" ? "pending" : raw;
}

/** A fill observed on the destination chain (FilledRelay of any fill type). */
export interface FillFact {
  txHash: string;
  /** A MulticallHandler `CallsFailed` event was emitted in the fill transaction. */
  callsFailed: boolean;
}

/** Everything the derivation looks at. */
export interface DepositStatusInput {
  /** Destination-chain deadline (unix seconds) after which the deposit can no longer be filled. */
  fillDeadline: number;
  /** The deposit's message (`0x` when none). */
  message: string;
  fill?: FillFact | null;
  slowFillRequested?: boolean;
  /** Refund placeholder: the transaction that refunded the expired deposit, once known. */
  refund?: { txHash: string } | null;
  /** A status already persisted for the row; kept when it is further along (e.g. `expired`, `refunded`). */
  storedStatus?: RawDepositStatus | null;
}

/** Result of {@link deriveDepositStatus}. */
export interface DerivedDepositStatus {
  rawStatus: RawDepositStatus;
  status: ApiDepositStatus;
  /** null without a message or until filled; false when the fill emitted CallsFailed; else true. */
  actionsSucceeded: boolean | null;
  fillTxnRef: string | null;
  depositRefundTxnRef: string | null;
}

/** A deposit is expired once `fillDeadline < now` (the contracts still accept a fill at `now == fillDeadline`). */
export function isFillDeadlinePassed(fillDeadline: number, now: number): boolean {
  return fillDeadline < now;
}

const progress: Record<Exclude<RawDepositStatus, "filled" | "slowFilled">, number> = {
  unfilled: 0,
  slowFillRequested: 1,
  expired: 2,
  refunded: 3,
};

/** `actionsSucceeded` of a deposit: only meaningful for a filled deposit that carried a message. */
export function deriveActionsSucceeded(message: string, fill: FillFact | null | undefined): boolean | null {
  if (isMessageEmpty(message) || !fill) return null;
  return !fill.callsFailed;
}

/** Derive the status of a deposit at time `now` (unix seconds). */
export function deriveDepositStatus(input: DepositStatusInput, now: number): DerivedDepositStatus {
  const fill = input.fill ?? null;
  const refund = input.refund ?? null;
  const stored = input.storedStatus ?? null;

  let rawStatus: RawDepositStatus;
  if (fill || stored === "filled" || stored === "slowFilled") {
    rawStatus = "filled";
  } else {
    let derived: keyof typeof progress = "unfilled";
    if (refund) derived = "refunded";
    else if (isFillDeadlinePassed(input.fillDeadline, now)) derived = "expired";
    else if (input.slowFillRequested) derived = "slowFillRequested";
    rawStatus = stored && progress[stored] > progress[derived] ? stored : derived;
  }

  return {
    rawStatus,
    status: toApiStatus(rawStatus),
    actionsSucceeded: rawStatus === "filled" ? deriveActionsSucceeded(input.message, fill) : null,
    fillTxnRef: fill?.txHash ?? null,
    depositRefundTxnRef: rawStatus === "refunded" ? (refund?.txHash ?? null) : null,
  };
}
