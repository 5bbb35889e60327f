/**
 * The relayer's durable state in `crosschain.relayer_fills` (one row per deposit it decided to fill, keyed
 * by the indexer's relay hash, like `crosschain.deposits` and `crosschain.fills`), and its reads of pending
 * deposits. States: 'sending' (nonce chosen and the signed transaction's hash recorded, broadcast maybe
 * not done), 'sent' (broadcast), 'confirmed', 'failed' (reverted, or abandoned before a broadcast: retried
 * while `attempts` < max), 'skipped' (filled by another relayer before ours went out: final).
 */

import { byteaToHex, type Database, hexToBytea, type Queryable } from "@platform/kernel";
import type { Hex } from "viem";
import { relayHash } from "../domain/relayHash.ts";
import type { DepositRow as FullDepositRow } from "../store/depositsRepository.ts";
import type { PendingDeposit } from "./types.ts";

export type IntentState = "sending" | "sent" | "confirmed" | "failed" | "skipped";

export interface Intent {
  internalRelayHash: Hex;
  destinationChainId: number;
  originChainId: number;
  depositId: bigint;
  state: IntentState;
  nonce: number;
  txHash: Hex | null;
  attempts: number;
  lastError: string | null;
  /** Seconds since the row last changed (database clock). */
  ageSec: number;
  /** The deposit, unless the indexer dropped it since (an origin-chain reorg). */
  deposit: PendingDeposit | undefined;
}

/** The columns of a deposit the relayer reads (the indexer's row, store/depositsRepository.ts). */
type DepositRow = Pick<
  FullDepositRow,
  | "origin_chain_id"
  | "deposit_id"
  | "destination_chain_id"
  | "relay_hash"
  | "depositor"
  | "recipient"
  | "exclusive_relayer"
  | "input_token"
  | "output_token"
  | "input_amount"
  | "output_amount"
  | "quote_timestamp"
  | "fill_deadline"
  | "exclusivity_deadline"
  | "message"
  | "block_timestamp"
> & {
  su_output_amount: string | null;
  su_recipient: Buffer | null;
  su_message: Buffer | null;
  su_signature: Buffer | null;
};

function toPendingDeposit(r: DepositRow): PendingDeposit {
  const relayData = {
    depositor: byteaToHex(r.depositor),
    recipient: byteaToHex(r.recipient),
    exclusiveRelayer: byteaToHex(r.exclusive_relayer),
    inputToken: byteaToHex(r.input_token),
    outputToken: byteaToHex(r.output_token),
    inputAmount: BigInt(r.input_amount),
    outputAmount: BigInt(r.output_amount),
    originChainId: BigInt(r.origin_chain_id),
    depositId: BigInt(r.deposit_id),
    fillDeadline: Number(r.fill_deadline),
    exclusivityDeadline: Number(r.exclusivity_deadline),
    message: byteaToHex(r.message),
  };
  // The anchor's relayers apply a speed-up only when it lowers the output amount.
  const speedUp =
    r.su_signature && r.su_output_amount !== null && BigInt(r.su_output_amount) < relayData.outputAmount
      ? {
          updatedOutputAmount: BigInt(r.su_output_amount),
          updatedRecipient: byteaToHex(r.su_recipient as Buffer),
          updatedMessage: byteaToHex(r.su_message as Buffer),
          depositorSignature: byteaToHex(r.su_signature),
        }
      : undefined;
  return {
    originChainId: Number(r.origin_chain_id),
    destinationChainId: Number(r.destination_chain_id),
    depositId: relayData.depositId,
    internalRelayHash: byteaToHex(r.relay_hash),
    relayHash: relayHash(relayData, BigInt(r.destination_chain_id)),
    relayData,
    quoteTimestamp: Number(r.quote_timestamp),
    blockTimestamp: Number(r.block_timestamp),
    ...(speedUp ? { speedUp } : {}),
  };
}

const DEPOSIT_COLUMNS = `d.origin_chain_id, d.deposit_id, d.destination_chain_id, d.relay_hash, d.depositor, d.recipient,
  d.exclusive_relayer, d.input_token, d.output_token, d.input_amount, d.output_amount, d.quote_timestamp, d.fill_deadline,
  d.exclusivity_deadline, d.message, d.block_timestamp, su.updated_output_amount AS su_output_amount,
  su.updated_recipient AS su_recipient, su.updated_message AS su_message, su.depositor_signature AS su_signature`;

/** The deposit's signed speed-up with the lowest output (by the deposit's own depositor: the only one a fill accepts). */
const SPEED_UP_JOIN = `LEFT JOIN LATERAL (
    SELECT s.updated_output_amount, s.updated_recipient, s.updated_message, s.depositor_signature
      FROM crosschain.speedups s
     WHERE s.origin_chain_id = d.origin_chain_id AND s.deposit_id = d.deposit_id AND s.depositor = d.depositor
       AND s.depositor_signature IS NOT NULL
     ORDER BY s.updated_output_amount, s.block_number DESC, s.log_index DESC
     LIMIT 1) su ON true`;

export interface PendingQuery {
  destinationChainId: number;
  /** Destination chain time: deposits whose fill deadline passed are left out. */
  now: number;
  limit: number;
  /** A 'failed' intent is tried again while its attempts are below this… */
  maxAttempts: number;
  /** …and once it has rested this long. */
  retryAfterSec: number;
  /** Continue after this deposit (the order is block time, origin chain, deposit id). */
  after?: DepositCursor | undefined;
}

export interface DepositCursor {
  blockTimestamp: number;
  originChainId: number;
  depositId: bigint;
}

export const cursorOf = (d: PendingDeposit): DepositCursor => ({
  blockTimestamp: d.blockTimestamp,
  originChainId: d.originChainId,
  depositId: d.depositId,
});

export type IntentsStore = ReturnType<typeof createIntentsStore>;

/**
 * `fence` (the relayer's lease on the destination chain, kernel `assertHeld` with its fencing token) is asserted
 * in the transaction of every write: an instance that lost the lease records no intent or hash, so it sends
 * nothing a successor would not see (the broadcast follows the record).
 */
export function createIntentsStore(db: Database, fence: (tx: Queryable) => Promise<void> = async () => {}) {
  const fenced = <T>(write: (tx: Queryable) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await fence(tx);
      return write(tx);
    });

  async function setState(
    internalRelayHash: Hex,
    state: IntentState,
    from: IntentState[],
    fields: { txHash?: Hex | null; error?: string | null } = {},
  ): Promise<boolean> {
    const rows = await fenced((tx) =>
      tx.query(
        `UPDATE crosschain.relayer_fills
          SET state = $2, tx_hash = coalesce($3, tx_hash), last_error = $4, updated_at = now()
        WHERE relay_hash = $1 AND state = ANY($5::text[]) RETURNING 1`,
        [
          hexToBytea(internalRelayHash),
          state,
          fields.txHash ? hexToBytea(fields.txHash) : null,
          fields.error ?? null,
          from,
        ],
      ),
    );
    return rows.length > 0;
  }

  return {
    /**
     * Unfilled, unexpired deposits to this chain that we hold no live intent for (oldest first, a page after
     * `q.after`): no row in `crosschain.fills`, and no `relayer_fills` row unless it is a 'failed' one due
     * for another attempt.
     */
    async pendingDeposits(q: PendingQuery): Promise<PendingDeposit[]> {
      const after = q.after
        ? [q.after.blockTimestamp, q.after.originChainId, q.after.depositId.toString()]
        : [null, null, null];
      const rows = await db.query<DepositRow>(
        `SELECT ${DEPOSIT_COLUMNS} FROM crosschain.deposits d ${SPEED_UP_JOIN}
          WHERE d.destination_chain_id = $1 AND d.fill_deadline >= $2
            AND NOT EXISTS (SELECT 1 FROM crosschain.fills f WHERE f.relay_hash = d.relay_hash)
            AND NOT EXISTS (SELECT 1 FROM crosschain.relayer_fills r WHERE r.relay_hash = d.relay_hash
                  AND NOT (r.state = 'failed' AND r.attempts < $3 AND r.updated_at <= now() - make_interval(secs => $4)))
            AND ($6::bigint IS NULL OR (d.block_timestamp, d.origin_chain_id, d.deposit_id) > ($6::bigint, $7::bigint, $8::numeric))
          ORDER BY d.block_timestamp, d.origin_chain_id, d.deposit_id
          LIMIT $5`,
        [q.destinationChainId, q.now, q.maxAttempts, q.retryAfterSec, q.limit, ...after],
      );
      return rows.map(toPendingDeposit);
    },

    /** Intents of this chain in 'sending' or 'sent', by nonce, with their deposits. */
    async activeIntents(destinationChainId: number): Promise<Intent[]> {
      const rows = await db.query<
        DepositRow & {
          r_relay_hash: Buffer;
          r_origin_chain_id: string;
          r_deposit_id: string;
          state: IntentState;
          nonce: string;
          r_tx_hash: Buffer | null;
          attempts: number;
          last_error: string | null;
          age_sec: string;
          has_deposit: boolean;
        }
      >(
        `SELECT ${DEPOSIT_COLUMNS}, r.relay_hash AS r_relay_hash, r.origin_chain_id AS r_origin_chain_id,
                r.deposit_id AS r_deposit_id, r.state, r.nonce, r.tx_hash AS r_tx_hash, r.attempts, r.last_error,
                extract(epoch FROM now() - r.updated_at)::text AS age_sec, (d.relay_hash IS NOT NULL) AS has_deposit
           FROM crosschain.relayer_fills r
           LEFT JOIN crosschain.deposits d ON d.relay_hash = r.relay_hash
           ${SPEED_UP_JOIN}
          WHERE r.state IN ('sending', 'sent') AND r.destination_chain_id = $1
          ORDER BY r.nonce`,
        [destinationChainId],
      );
      return rows.map((r) => ({
        internalRelayHash: byteaToHex(r.r_relay_hash),
        destinationChainId,
        originChainId: Number(r.r_origin_chain_id),
        depositId: BigInt(r.r_deposit_id),
        state: r.state,
        nonce: Number(r.nonce),
        txHash: r.r_tx_hash ? byteaToHex(r.r_tx_hash) : null,
        attempts: r.attempts,
        lastError: r.last_error,
        ageSec: Number(r.age_sec),
        deposit: r.has_deposit ? toPendingDeposit(r) : undefined,
      }));
    },

    /**
     * Records the decision to fill, BEFORE the broadcast: state 'sending', the nonce and the hash of the signed
     * transaction. Takes over a 'failed' row (one more attempt); false when another live row exists.
     */
    async beginIntent(deposit: PendingDeposit, nonce: number, txHash: Hex): Promise<boolean> {
      return fenced(async (tx) => {
        const rows = await tx.query(
          `INSERT INTO crosschain.relayer_fills
             (relay_hash, destination_chain_id, origin_chain_id, deposit_id, state, nonce, tx_hash, attempts)
           VALUES ($1, $2, $3, $4, 'sending', $5, $6, 1)
           ON CONFLICT (relay_hash) DO UPDATE
             SET state = 'sending', nonce = EXCLUDED.nonce, tx_hash = EXCLUDED.tx_hash,
                 attempts = crosschain.relayer_fills.attempts + 1, last_error = NULL, updated_at = now()
             WHERE crosschain.relayer_fills.state = 'failed'
           RETURNING 1`,
          [
            hexToBytea(deposit.internalRelayHash),
            deposit.destinationChainId,
            deposit.originChainId,
            deposit.depositId.toString(),
            nonce,
            hexToBytea(txHash),
          ],
        );
        return rows.length > 0;
      });
    },

    /** A new transaction for a live intent (re-send or replacement), recorded before its broadcast. */
    setTxHash: (h: Hex, txHash: Hex, state: "sending" | "sent") => setState(h, state, ["sending", "sent"], { txHash }),
    markSent: (h: Hex, txHash: Hex) => setState(h, "sent", ["sending", "sent"], { txHash }),
    markConfirmed: (h: Hex, txHash: Hex) => setState(h, "confirmed", ["sending", "sent"], { txHash }),
    markFailed: (h: Hex, error: string, txHash?: Hex) => setState(h, "failed", ["sending", "sent"], { error, txHash }),
    markSkipped: (h: Hex, error: string) => setState(h, "skipped", ["sending", "sent"], { error }),

    /** The fill the indexer recorded for this relay, if any. */
    async recordedFill(internalRelayHash: Hex): Promise<{ txHash: Hex; relayer: Hex } | undefined> {
      const [row] = await db.query<{ tx_hash: Buffer; relayer: Buffer }>(
        "SELECT tx_hash, relayer FROM crosschain.fills WHERE relay_hash = $1",
        [hexToBytea(internalRelayHash)],
      );
      return row ? { txHash: byteaToHex(row.tx_hash), relayer: byteaToHex(row.relayer) } : undefined;
    },
  };
}
