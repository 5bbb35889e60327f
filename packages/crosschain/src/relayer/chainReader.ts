/**
 * What the relayer reads from a destination chain: time, nonces, fees, fill statuses, balances, receipts,
 * pending transactions, and its own past fills (FilledRelay logs).
 */
import { loadArtifact } from "@platform/chains";
import {
  type Abi,
  type Address,
  BaseError,
  Eip1559FeesNotSupportedError,
  erc20Abi,
  type Hex,
  type Log,
  type PublicClient,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import type { SpokeChain } from "../deployments.ts";
import { addressToBytes32 } from "../domain/relayHash.ts";
import { decodeSpokeLog } from "../indexer/spokePoolEvents.ts";
import type { Fees } from "./fees.ts";
import type { PendingDeposit } from "./types.ts";

export const spokePoolAbi: Abi = loadArtifact("Ethereum_SpokePool").abi;

/** `fillStatuses` values. */
export const FillStatus = { Unfilled: 0, RequestedSlowFill: 1, Filled: 2 } as const;

export interface ChainContext {
  /** Latest block's timestamp: the chain time deadlines are compared with. */
  now: number;
  head: bigint;
  /** Transactions of ours mined (nonce of the next one to be mined). */
  latestNonce: number;
  /** Mined + queued in the node's pool. */
  pendingNonce: number;
}

/** `fillRelay` arguments: repaid on this (the destination) chain, to our own address. */
export function fillArgs(deposit: PendingDeposit, relayer: Address) {
  return [deposit.relayData, BigInt(deposit.destinationChainId), addressToBytes32(relayer)] as const;
}

/**
 * The SpokePool call that fills `deposit`: `fillRelay`, or `fillRelayWithUpdatedDeposit` with the
 * depositor's signed speed-up (new output amount, recipient and message).
 */
export function fillCall(deposit: PendingDeposit, relayer: Address) {
  const s = deposit.speedUp;
  if (!s) return { abi: spokePoolAbi, functionName: "fillRelay", args: fillArgs(deposit, relayer) } as const;
  return {
    abi: spokePoolAbi,
    functionName: "fillRelayWithUpdatedDeposit",
    args: [
      ...fillArgs(deposit, relayer),
      s.updatedOutputAmount,
      s.updatedRecipient,
      s.updatedMessage,
      s.depositorSignature,
    ],
  } as const;
}

export type ChainReader = ReturnType<typeof createChainReader>;

export function createChainReader(chain: SpokeChain, client: PublicClient, relayer: Address) {
  let legacyFees = false;
  return {
    client,
    async context(): Promise<ChainContext> {
      const [block, latestNonce, pendingNonce] = await Promise.all([
        client.getBlock({ blockTag: "latest" }),
        client.getTransactionCount({ address: relayer, blockTag: "latest" }),
        client.getTransactionCount({ address: relayer, blockTag: "pending" }),
      ]);
      return { now: Number(block.timestamp), head: block.number, latestNonce, pendingNonce };
    },

    /** Current market fees (EIP-1559, or the gas price on chains without a base fee). */
    async marketFees(): Promise<Fees> {
      if (!legacyFees) {
        try {
          const f = await client.estimateFeesPerGas();
          return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
        } catch (error) {
          // Only viem's "this chain has no base fee" switches to the gas price for good; any other failure
          // (a node error that happens to mention base fees included) is the caller's to retry.
          if (!isEip1559Unsupported(error)) throw error;
          legacyFees = true;
        }
      }
      const gasPrice = await client.getGasPrice();
      return { maxFeePerGas: gasPrice, maxPriorityFeePerGas: gasPrice };
    },
    get legacyFees() {
      return legacyFees;
    },

    async fillStatus(relayHash: Hex): Promise<number> {
      const status = await client.readContract({
        address: chain.spokePool,
        abi: spokePoolAbi,
        functionName: "fillStatuses",
        args: [relayHash],
      });
      return Number(status);
    },

    tokenBalance: (token: Address) =>
      client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [relayer] }),
    allowance: (token: Address) =>
      client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [relayer, chain.spokePool],
      }),
    nativeBalance: () => client.getBalance({ address: relayer }),

    /** Gas of our fill, simulated on the latest state: throws what the fill would revert with. */
    estimateFillGas: (deposit: PendingDeposit) =>
      client.estimateContractGas({
        address: chain.spokePool,
        ...fillCall(deposit, relayer),
        account: relayer,
      } as never),

    async receipt(hash: Hex): Promise<TransactionReceipt | undefined> {
      try {
        return await client.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      }
    },

    /** Our transactions mined so far (the nonce of the next one to be mined), read now. */
    latestNonce: () => client.getTransactionCount({ address: relayer, blockTag: "latest" }),

    /** "mined", or the fees of the transaction if the node holds it unmined, or undefined if it does not know it. */
    async transactionState(hash: Hex): Promise<"mined" | { fees: Fees } | undefined> {
      try {
        const tx = await client.getTransaction({ hash });
        if (tx.blockNumber !== null) return "mined";
        const maxFeePerGas = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
        return { fees: { maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? maxFeePerGas } };
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return undefined;
        throw error;
      }
    },

    /** The FilledRelay of this deposit on this chain since `fromBlock` (any relayer), if any. */
    async findFillLog(deposit: PendingDeposit, fromBlock: bigint): Promise<{ txHash: Hex; relayer: Hex } | undefined> {
      const logs = await client.getContractEvents({
        address: chain.spokePool,
        abi: spokePoolAbi,
        eventName: "FilledRelay",
        args: { originChainId: BigInt(deposit.originChainId), depositId: deposit.depositId },
        fromBlock,
        toBlock: "latest",
      });
      for (const log of logs) {
        // The indexer's decoder gives the same relay hash (with messageHash) the deposit row carries.
        const fact = decodeSpokeLog(chain.chainId, log as unknown as Log);
        if (
          fact?.kind === "fill" &&
          fact.relayHash === deposit.internalRelayHash.toLowerCase() &&
          log.transactionHash
        ) {
          return { txHash: log.transactionHash, relayer: fact.relayer };
        }
      }
      return undefined;
    },
  };
}

/** Whether viem refused EIP-1559 fees because the chain's blocks have no base fee (also as the cause of another error). */
const isEip1559Unsupported = (error: unknown): boolean =>
  error instanceof Eip1559FeesNotSupportedError ||
  (error instanceof BaseError && error.walk((e) => e instanceof Eip1559FeesNotSupportedError) !== null);

/** Whether a bytes32 relayer is this address. */
export const isRelayer = (bytes32: Hex, address: Address) => bytes32.toLowerCase() === addressToBytes32(address);
