/**
 * The deposit-address watcher: on each origin chain, funds that reached an issued counterfactual address are
 * deposited into the SpokePool from it (the clone executes its deposit leaf with the beacon signer's EIP-712
 * authorisation, through `factory.deployIfNeededAndExecute`), or, when the transfer cannot be quoted within the
 * address's fee cap (too little to cover the fees, above the limits, a route no longer enabled), returned to
 * the refund address through the withdraw leaf.
 *
 * Kill-safe, and never twice: an execution is signed, then recorded with its raw transaction, then broadcast.
 * After a crash the recorded transaction is sent again (same hash), never a new one; the deposit's signed nonce
 * (one per execution of the address) is single-use in the clone, so even a second transaction could not deposit
 * twice. One instance works on a chain at a time: the one holding the kernel lease
 * `crosschain.deposit-addresses:<chainId>` (`runWhileLeased`); its execution records carry the lease's fencing
 * token, so an instance that lost the lease records, and therefore sends, nothing new.
 */
import { createChainWalletClient } from "@platform/chains";
import {
  createLeases,
  type Database,
  type LeasedRunner,
  LeaseLostError,
  type Logger,
  type Queryable,
  runWhileLeased,
} from "@platform/kernel";
import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  toFunctionSelector,
  zeroHash,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SpokeChain } from "../deployments.ts";
import {
  BEACON_MAX_FEE_GETTERS,
  type CounterfactualInputSymbol,
  depositAddressTree,
  encodeSubmitterData,
  executeDepositTypedData,
  executionNonce,
  NATIVE_ASSET,
  withinFeeCap,
} from "../domain/counterfactual/depositAddress.ts";
import { QuoteRefusedError } from "../domain/quoteErrors.ts";
import { multicallAddressOf, nativeBalanceCall, tokenBalanceCall } from "../quotes/balanceCalls.ts";
import { type ChainClients, createChainClients } from "../quotes/chainClients.ts";
import { wrappedNativeOf } from "../quotes/enabledRoutes.ts";
import { shortError } from "../relayer/fillSender.ts";
import { counterfactualContractsOf } from "../services/depositAddresses.ts";
import type { SuggestedFeesService } from "../services/suggestedFees.ts";
import {
  createDepositAddressesRepository,
  type DepositAddressRow,
  type ExecutionRow,
} from "../store/depositAddressesRepository.ts";

const factoryAbi = parseAbi([
  "function deploy(bytes32 salt, bytes32 initialRoot) returns (address)",
  "function deployIfNeededAndExecute(bytes32 salt, bytes32 initialRoot, bytes executeCalldata) payable returns (address)",
]);
const cloneAbi = parseAbi([
  "function execute(address implementation, bytes params, bytes submitterData, bytes32[] proof) payable",
]);
/** How long a signed execution's authorisation stays valid. */
const SIGNATURE_VALIDITY_SEC = 600;

export type WatcherStep = "recorded" | "broadcast";

export interface DepositAddressWatcherOptions {
  db: Database;
  chains: readonly SpokeChain[];
  /** The CounterfactualBeacon's signer: signs executions and sends them (it is also every address's admin). */
  privateKey: Hex;
  suggestedFees: SuggestedFeesService;
  logger: Logger;
  pollMs: number;
  /** Seconds a chain's lease lasts after its last renewal (the platform passes CROSSCHAIN_RELAYER_LEASE_SEC). */
  leaseTtlSec: number;
  clientOf?: ChainClients;
  /** Called after each crash-relevant step of an execution (the kill test stops there). */
  hooks?: { onStep?(step: WatcherStep, info: { address: Address; seq: number }): Promise<void> | void };
}

export interface DepositAddressWatcherStatus {
  deposits: number;
  refunds: number;
  failed: number;
  lastError: string | null;
}

export interface DepositAddressWatcher {
  readonly status: DepositAddressWatcherStatus;
  /** Look at the addresses now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/** The kernel lease of the watcher on an origin chain. */
export const watcherLeaseName = (chainId: number) => `crosschain.deposit-addresses:${chainId}`;

/** One tenure of a chain's lease: aborted when it ends; `fence` asserts it in a transaction. */
interface Tenure {
  signal: AbortSignal;
  fence: (tx: Queryable) => Promise<void>;
}

/** Starts one loop per origin chain that can hold deposit addresses, each under the chain's lease. */
export function startDepositAddressWatcher(o: DepositAddressWatcherOptions): DepositAddressWatcher {
  const account = privateKeyToAccount(o.privateKey);
  const repository = createDepositAddressesRepository(o.db);
  const clientOf = o.clientOf ?? createChainClients();
  const log = o.logger.child({ component: "deposit-address-watcher" });
  const status: DepositAddressWatcherStatus = { deposits: 0, refunds: 0, failed: 0, lastError: null };
  const maxFeeFixed = new Map<string, bigint>();
  const leases = createLeases({ db: o.db });
  const wakers = new Set<() => void>();

  async function passOn(chain: SpokeChain, tenure: Tenure, wallet: ReturnType<typeof createChainWalletClient>) {
    const contracts = counterfactualContractsOf(chain);
    if (!contracts) return;
    const rows = await repository.onChain(chain.chainId);
    if (rows.length === 0) return;
    const client = clientOf(chain);

    // 1. Settle what was sent; an address with an execution in flight waits for it.
    const busy = new Set<string>();
    for (const e of await repository.openExecutions(chain.chainId)) {
      if (!(await settle(chain, e))) busy.add(e.address.toLowerCase());
    }

    // 2. Balances of every address, in one multicall.
    const multicallAddress = multicallAddressOf(chain);
    const balances = (await client.multicall({
      contracts: rows.map((r) =>
        r.inputToken.toLowerCase() === NATIVE_ASSET.toLowerCase()
          ? nativeBalanceCall(multicallAddress, r.address)
          : tokenBalanceCall(r.inputToken, r.address),
      ) as never,
      allowFailure: false,
      multicallAddress,
    })) as bigint[];

    // 3. Deposit or refund what arrived, one address at a time.
    for (const [i, row] of rows.entries()) {
      const balance = balances[i] as bigint;
      if (balance === 0n || busy.has(row.address.toLowerCase()) || tenure.signal.aborted) continue;
      await handle(chain, tenure, contracts, row, balance, client, wallet);
    }
  }

  async function settle(chain: SpokeChain, e: ExecutionRow): Promise<boolean> {
    const client = clientOf(chain);
    const receipt = await client.getTransactionReceipt({ hash: e.txHash }).catch(() => null);
    if (receipt) {
      const ok = receipt.status === "success";
      await repository.settle(e, ok ? "confirmed" : "failed", ok ? undefined : "reverted");
      if (ok) status[e.kind === "deposit" ? "deposits" : "refunds"]++;
      else status.failed++;
      log.info(
        { chainId: chain.chainId, address: e.address, seq: e.seq, kind: e.kind, ok },
        "deposit address execution settled",
      );
      return true;
    }
    // Not mined: send the recorded transaction again (a crash may have come before its broadcast).
    try {
      await client.sendRawTransaction({ serializedTransaction: e.rawTx });
    } catch (error) {
      const text = shortError(error).toLowerCase();
      if (text.includes("nonce too low") || text.includes("nonce is too low")) {
        // Its nonce went to another transaction: this one can never be mined (checked again first).
        const again = await client.getTransactionReceipt({ hash: e.txHash }).catch(() => null);
        if (!again) {
          await repository.settle(e, "failed", "replaced: its nonce was used by another transaction");
          status.failed++;
          return true;
        }
      }
    }
    return false;
  }

  async function handle(
    chain: SpokeChain,
    tenure: Tenure,
    contracts: NonNullable<ReturnType<typeof counterfactualContractsOf>>,
    row: DepositAddressRow,
    balance: bigint,
    client: ReturnType<ChainClients>,
    wallet: ReturnType<typeof createChainWalletClient>,
  ) {
    const native = row.inputToken.toLowerCase() === NATIVE_ASSET.toLowerCase();
    const inputErc20 = native ? wrappedNativeOf(chain)?.token.address : row.inputToken;
    const seq = await repository.nextSeq(o.db, chain.chainId, row.address);
    const tree = depositAddressTree({
      depositImplementation: contracts.depositImplementation,
      routeParams: row.routeParams,
      withdrawImplementation: contracts.withdrawImplementation,
      withdrawParams: row.withdrawParams,
    });
    let refundReason: string | undefined;
    let depositData: Hex | undefined;
    try {
      const quote = await o.suggestedFees.quote({
        amount: balance.toString(),
        inputToken: inputErc20,
        outputToken: row.outputToken,
        originChainId: chain.chainId,
        destinationChainId: row.destinationChainId,
      });
      const head = await client.getBlock({ blockTag: "latest" });
      const terms = {
        inputAmount: balance,
        outputAmount: BigInt(quote.outputAmount),
        exclusiveRelayer: quote.exclusiveRelayer as Address,
        exclusivityDeadline: quote.exclusivityDeadline,
        executionFeeRecipient: account.address,
        nonce: executionNonce(row.address, seq),
        quoteTimestamp: Number(quote.timestamp),
        fillDeadline: Number(quote.fillDeadline),
        signatureDeadline: Number(head.timestamp) + SIGNATURE_VALIDITY_SEC,
        // The operator pays the gas; the address's fixed cap could let it charge that (not done here).
        executionFee: 0n,
      };
      const cap = await maxFeeFixedOf(chain, row.inputSymbol as CounterfactualInputSymbol, client);
      if (
        !withinFeeCap({
          inputAmount: terms.inputAmount,
          outputAmount: terms.outputAmount,
          executionFee: terms.executionFee,
          stableExchangeRate: row.stableExchangeRate,
          maxFeeFixed: cap,
          maxFeeBps: row.maxFeeBps,
        })
      ) {
        refundReason = "the quote's fees exceed the address's fee cap";
      } else {
        const signature = await account.signTypedData(
          executeDepositTypedData(chain.chainId, row.address, row.routeParams, terms),
        );
        const executeCalldata = encodeFunctionData({
          abi: cloneAbi,
          functionName: "execute",
          args: [
            contracts.depositImplementation,
            row.routeParams,
            encodeSubmitterData(terms, signature),
            [tree.withdrawLeaf],
          ],
        });
        depositData = encodeFunctionData({
          abi: factoryAbi,
          functionName: "deployIfNeededAndExecute",
          args: [zeroHash, row.root, executeCalldata],
        });
      }
    } catch (error) {
      if (!(error instanceof QuoteRefusedError)) {
        // Chain state not warm, an RPC down: try again at the next pass.
        status.lastError = shortError(error);
        log.warn(
          { chainId: chain.chainId, address: row.address, err: status.lastError },
          "deposit address not quoted; retrying",
        );
        return;
      }
      refundReason = `${error.code}: ${error.message}`;
    }

    if (depositData) {
      await send(chain, tenure, wallet, client, row, seq, "deposit", balance, contracts.factory, depositData);
      return;
    }
    log.info({ chainId: chain.chainId, address: row.address, reason: refundReason }, "refunding a deposit address");
    const code = await client.getCode({ address: row.address });
    if (!code || code === "0x") {
      // The withdraw leaf runs on the clone itself: deploy it first (idempotent: a second deploy just reverts).
      const hash = await wallet.sendTransaction({
        to: contracts.factory,
        data: encodeFunctionData({ abi: factoryAbi, functionName: "deploy", args: [zeroHash, row.root] }),
      });
      await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
    }
    const withdraw = encodeFunctionData({
      abi: cloneAbi,
      functionName: "execute",
      args: [
        contracts.withdrawImplementation,
        row.withdrawParams,
        encodeAbiParameters(
          [{ type: "address" }, { type: "address" }, { type: "uint256" }],
          [native ? NATIVE_ASSET : row.inputToken, row.refundAddress, balance],
        ),
        [tree.depositLeaf],
      ],
    });
    await send(chain, tenure, wallet, client, row, seq, "refund", balance, row.address, withdraw);
  }

  /** Sign, record, broadcast, wait: see the module comment. */
  async function send(
    chain: SpokeChain,
    tenure: Tenure,
    wallet: ReturnType<typeof createChainWalletClient>,
    client: ReturnType<ChainClients>,
    row: DepositAddressRow,
    seq: number,
    kind: "deposit" | "refund",
    amount: bigint,
    to: Address,
    data: Hex,
  ) {
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: account.address, to, data });
    } catch (error) {
      status.lastError = shortError(error);
      log.warn(
        { chainId: chain.chainId, address: row.address, kind, err: status.lastError },
        "execution does not simulate; retrying",
      );
      return;
    }
    const [nonce, fees] = await Promise.all([
      client.getTransactionCount({ address: account.address, blockTag: "pending" }),
      client.estimateFeesPerGas(),
    ]);
    const rawTx = await wallet.signTransaction({
      to,
      data,
      gas: gas + gas / 4n,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const txHash = keccak256(rawTx);
    const execution = { originChainId: chain.chainId, address: row.address, seq, kind, amount, rawTx, txHash };
    await repository.recordSent(execution, tenure.fence);
    await o.hooks?.onStep?.("recorded", { address: row.address, seq });
    await client.sendRawTransaction({ serializedTransaction: rawTx });
    await o.hooks?.onStep?.("broadcast", { address: row.address, seq });
    await client.waitForTransactionReceipt({ hash: txHash, timeout: 60_000 }).catch(() => undefined);
    await settle(chain, { ...execution, state: "sent" });
  }

  async function maxFeeFixedOf(chain: SpokeChain, symbol: CounterfactualInputSymbol, client: ReturnType<ChainClients>) {
    const key = `${chain.chainId}:${symbol}`;
    const known = maxFeeFixed.get(key);
    if (known !== undefined) return known;
    const raw = await client.call({
      to: chain.contracts.counterfactualBeacon as Address,
      data: toFunctionSelector(BEACON_MAX_FEE_GETTERS[symbol]),
    });
    const value = BigInt(raw.data ?? "0x0");
    maxFeeFixed.set(key, value);
    return value;
  }

  /** Passes over a chain's addresses every `pollMs` (or on `wake()`) until the tenure ends. */
  async function watch(chain: SpokeChain, tenure: Tenure) {
    const wallet = createChainWalletClient({ ...chain, account });
    const { signal } = tenure;
    while (!signal.aborted) {
      try {
        await passOn(chain, tenure, wallet);
      } catch (error) {
        // A fenced record refused: another instance holds the chain's lease now. End this tenure at once.
        if (error instanceof LeaseLostError) break;
        status.lastError = shortError(error);
        log.warn({ chainId: chain.chainId, err: status.lastError }, "deposit address pass failed; retrying");
      }
      if (signal.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, o.pollMs);
        function done() {
          clearTimeout(timer);
          wakers.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        }
        wakers.add(done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  const runners: LeasedRunner[] = o.chains
    .filter((chain) => counterfactualContractsOf(chain))
    .map((chain) =>
      runWhileLeased(
        {
          db: o.db,
          logger: log.child({ chainId: chain.chainId }),
          name: watcherLeaseName(chain.chainId),
          ttlMs: o.leaseTtlSec * 1000,
        },
        ({ lease, signal }) => watch(chain, { signal, fence: (tx) => leases.assertHeld(tx, lease) }),
      ),
    );

  return {
    status,
    wake: () => {
      for (const w of [...wakers]) w();
    },
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
    },
  };
}
