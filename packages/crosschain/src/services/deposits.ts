/**
 * Deposits as `/deposit/status` and `/deposits` see them: which stored deposits a lookup or a filter means
 * (the anchor's rules), each with its status derived at read time (`domain/depositStatus.ts`). SQL lives in
 * the repository; the JSON shape and HTTP in the routes.
 */
import { byteaToHex, hexToBytea } from "@platform/kernel";
import { DepositIndexOutOfRangeError, DepositNotFoundError } from "../domain/depositErrors.ts";
import { type DerivedDepositStatus, deriveDepositStatus } from "../domain/depositStatus.ts";
import type { DepositRow, DepositsRepository, ListDepositsParameters } from "../store/depositsRepository.ts";

/** How `/deposit/status` names a deposit (hex values are `0x…`); `index` picks one of several (0-based). */
export type DepositLookup =
  | { by: "txHash"; txHash: string; index: number }
  /** With originChainId and depositId as well, all must match (the anchor ANDs them). */
  | { by: "relayHash"; relayHash: string; originChainId?: number; depositId?: string; index: number }
  | { by: "depositId"; originChainId: number; depositId: string; index: number }
  /** The index-th deposit made from this address, oldest first. */
  | { by: "depositor"; depositor: string; index: number };

type AddressFilter = "depositor" | "recipient" | "address" | "inputToken" | "outputToken";

/** What `/deposits` filters on; addresses are `0x…` EVM addresses. */
export type DepositFilter = Omit<ListDepositsParameters, AddressFilter | "nowSec"> & {
  [K in AddressFilter]?: string | undefined;
} & {
  /** Only SpokePool (`across`) deposits are indexed: `cctp` and `oft` list nothing. */
  depositType?: "across" | "cctp" | "oft" | undefined;
};

/** A stored deposit and its status now. */
export interface DepositWithStatus {
  deposit: DepositRow;
  status: DerivedDepositStatus;
}

/** The deposit a lookup found, and where it stands among the deposits that matched. */
export interface FoundDeposit extends DepositWithStatus {
  currentIndex: number;
  maxIndex: number;
}

/** An EVM address as stored in a bytes32 column (left-padded). */
const addressKey = (address: string) => Buffer.concat([Buffer.alloc(12), hexToBytea(address)]);
const optionalAddressKey = (address: string | undefined) => (address ? addressKey(address) : undefined);
const nowSec = () => Math.floor(Date.now() / 1000);

function withStatus(deposit: DepositRow, now: number): DepositWithStatus {
  const status = deriveDepositStatus(
    {
      fillDeadline: Number(deposit.fill_deadline),
      message: byteaToHex(deposit.message),
      fill: deposit.fill_tx_hash
        ? { txHash: byteaToHex(deposit.fill_tx_hash), callsFailed: deposit.fill_calls_failed === true }
        : null,
      slowFillRequested: deposit.slow_fill_requested,
      refund: deposit.refund_tx_hash ? { txHash: byteaToHex(deposit.refund_tx_hash) } : null,
    },
    now,
  );
  return { deposit, status };
}

/** A lookup that matches at most one deposit: that one is at index 0. */
const single = (row: DepositRow | undefined, index: number) => ({
  row: index === 0 ? row : undefined,
  count: row ? 1 : 0,
});

/** The lookup's `index`-th matching deposit, and how many match. */
async function match(
  deposits: DepositsRepository,
  lookup: DepositLookup,
): Promise<{ row: DepositRow | undefined; count: number }> {
  switch (lookup.by) {
    case "txHash": {
      const rows = await deposits.byTxHash(hexToBytea(lookup.txHash));
      return { row: rows[lookup.index], count: rows.length };
    }
    case "relayHash": {
      const row = await deposits.byRelayHash(hexToBytea(lookup.relayHash));
      const other =
        (lookup.originChainId !== undefined && Number(row?.origin_chain_id) !== lookup.originChainId) ||
        (lookup.depositId !== undefined && row !== undefined && BigInt(row.deposit_id) !== BigInt(lookup.depositId));
      return single(other ? undefined : row, lookup.index);
    }
    case "depositId":
      return single(await deposits.byDepositId(lookup.originChainId, lookup.depositId), lookup.index);
    case "depositor":
      return deposits.byDepositor(addressKey(lookup.depositor), lookup.index);
  }
}

export function createDepositsService(deposits: DepositsRepository) {
  return {
    /** @throws {DepositNotFoundError} @throws {DepositIndexOutOfRangeError} */
    find: async (lookup: DepositLookup): Promise<FoundDeposit> => {
      const { row, count } = await match(deposits, lookup);
      if (count === 0) throw new DepositNotFoundError();
      if (!row) throw new DepositIndexOutOfRangeError(lookup.index, count - 1);
      return { ...withStatus(row, nowSec()), currentIndex: lookup.index, maxIndex: count - 1 };
    },

    /** Deposits matching every given filter, newest first. */
    list: async ({ depositType, ...filter }: DepositFilter): Promise<DepositWithStatus[]> => {
      if (depositType === "cctp" || depositType === "oft") return [];
      const now = nowSec();
      const rows = await deposits.list({
        ...filter,
        depositor: optionalAddressKey(filter.depositor),
        recipient: optionalAddressKey(filter.recipient),
        address: optionalAddressKey(filter.address),
        inputToken: optionalAddressKey(filter.inputToken),
        outputToken: optionalAddressKey(filter.outputToken),
        nowSec: now,
      });
      return rows.map((row) => withStatus(row, now));
    },
  };
}

export type DepositsService = ReturnType<typeof createDepositsService>;
