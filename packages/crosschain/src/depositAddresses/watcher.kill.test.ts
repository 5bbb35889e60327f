/**
 * Kill test: the deposit-address watcher runs in a child process and is SIGKILLed after an execution was
 * recorded (signed, not broadcast) and after one was broadcast (not settled), then restarted on the same
 * database. At the end the address made exactly one deposit per execution, for the amounts it held when each
 * was signed, every execution is confirmed, and the signer's key sent nothing else.
 */
import { manifestToken } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createLogger, kernelMigrations, loadConfig } from "@platform/kernel";
import { createKillTestDatabase, type KillTestDatabase, killTestChildren } from "@platform/kernel/testing";
import { type Address, erc20Abi, type Hex, parseEventLogs, parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { createQuoteContext } from "../quotes/quoteContext.ts";
import { createDepositAddressService } from "../services/depositAddresses.ts";
import { createSuggestedFeesService } from "../services/suggestedFees.ts";
import { createSwapApprovalService } from "../services/swapApproval.ts";
import { createDepositAddressesRepository } from "../store/depositAddressesRepository.ts";
import { contextChains, quotesWarm, spokeAbi, waitFor } from "../testing/index.ts";
import type { WatcherChildConfig } from "./killChild.ts";
import { startDepositAddressWatcher, type WatcherStep } from "./watcher.ts";

const A = 8453;
const B = 10;
const CHILD = new URL("./killChild.ts", import.meta.url);
let f: DevnetFixture;
let database: KillTestDatabase;
const children = killTestChildren();

beforeAll(async () => {
  [f, database] = await Promise.all([
    startDevnetFixture({ chainIds: [A, B] }),
    createKillTestDatabase({ name: "watcher", migrations: [...kernelMigrations(), ...crosschainService.migrations] }),
  ]);
});

afterAll(async () => {
  children.killAll();
  await database?.drop();
  await f?.stop();
});

function spawnChild(crashAt: WatcherStep) {
  const config: WatcherChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    chains: contextChains(f),
    relayerKey: f.accounts.relayer.privateKey as Hex,
    signerKey: f.accounts.signer.privateKey as Hex,
    crashAt,
  };
  let crashLine: string | undefined;
  const child = children.spawn({
    script: CHILD,
    env: { WATCHER_CHILD_CONFIG: JSON.stringify(config) },
    onStdout(out) {
      const line = out.split("\n").find((l) => l.startsWith("CRASH "));
      if (line && !crashLine) {
        crashLine = line;
        child.kill();
      }
    },
  });
  return {
    async go() {
      const end = await child.go(30_000);
      if (crashLine && end === "SIGKILL") return crashLine;
      throw new Error(`child ended (${String(end)}) without reaching ${crashAt}:\n${child.out}\n${child.err}`);
    },
  };
}

/** The context pieces a service instance would have, on `db`. */
function servicesOn(db: Awaited<ReturnType<KillTestDatabase["open"]>>) {
  const logger = createLogger({ level: "silent" });
  const quotes = createQuoteContext({
    config: { ...loadConfig({ env: {} }), crosschainRelayerKey: f.accounts.relayer.privateKey },
    db,
    logger,
    chains: contextChains(f),
  } as never);
  const suggestedFees = createSuggestedFeesService(quotes);
  return { quotes, suggestedFees, logger };
}

it("a watcher SIGKILLed after recording and after broadcasting deposits each execution exactly once", async () => {
  const usdc = manifestToken(f.chain(A), "USDC").address;
  const signer = f.accounts.signer.address as Address;
  const client = f.publicClient(A);
  const user = f.walletClient(A, f.accounts.users[0] as never);
  const fund = async (to: Address, amount: bigint) =>
    client.waitForTransactionReceipt({
      hash: await user.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, amount] }),
    });
  const balance = (who: Address) =>
    client.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [who] });

  // Issue the address as /swap/counterfactual does, then leave the database to the children.
  let db = await database.open();
  const { quotes, suggestedFees } = servicesOn(db);
  await quotesWarm(quotes);
  const issued = await createDepositAddressService({
    quotes,
    swaps: createSwapApprovalService(quotes, suggestedFees),
    repository: createDepositAddressesRepository(db),
    signer,
    maxFeeBps: 100,
    clientOf: () => client,
  }).quote({
    useDepositAddress: true,
    inputToken: usdc,
    outputToken: manifestToken(f.chain(B), "USDC").address,
    originChainId: A,
    destinationChainId: B,
    amount: "30000000",
    recipient: f.accounts.users[2]?.address as string,
  });
  await quotes.close();
  await database.close(db);
  const address = issued.depositAddress;
  const signerNonceBefore = await client.getTransactionCount({ address: signer });

  // 1. Killed after the first execution (30 USDC) was signed and recorded, before its broadcast.
  const child1 = spawnChild("recorded");
  await fund(address, parseUnits("30", 6));
  expect(await child1.go()).toBe("CRASH recorded 0");
  expect(await balance(address)).toBe(parseUnits("30", 6));

  // 2. More arrives; the restart sends the recorded transaction again (it deposits the 30 it was signed
  // for), then a second execution for the 40 left, and is killed right after broadcasting it.
  await fund(address, parseUnits("40", 6));
  const child2 = spawnChild("broadcast");
  expect(await child2.go()).toBe("CRASH broadcast 1");

  // 3. The last restart (in process) settles the second execution by its receipt and sends nothing new.
  db = await database.open();
  const services = servicesOn(db);
  services.quotes.cache.start();
  const watcher = startDepositAddressWatcher({
    db,
    chains: services.quotes.chains,
    privateKey: f.accounts.signer.privateKey as Hex,
    suggestedFees: services.suggestedFees,
    logger: services.logger,
    pollMs: 50,
    leaseTtlSec: 1,
  });
  const repository = createDepositAddressesRepository(db);
  try {
    await waitFor(
      "both executions confirmed",
      async () => {
        const rows = await repository.executions(A, address);
        return rows.length === 2 && rows.every((r) => r.state === "confirmed");
      },
      20_000,
    );
  } finally {
    await watcher.stop();
    await services.quotes.close();
  }
  const rows = await repository.executions(A, address);
  expect(rows.map((r) => [r.seq, r.kind, r.amount])).toEqual([
    [0, "deposit", "30000000"],
    [1, "deposit", "40000000"],
  ]);
  await database.close(db);

  expect(await balance(address)).toBe(0n);
  const logs = await client.getLogs({ address: f.chain(A).contracts.spokePool, fromBlock: 0n });
  const deposits = parseEventLogs({ abi: spokeAbi as never, logs, eventName: "FundsDeposited" as never })
    .map((l) => (l as unknown as { args: { depositor: Hex; inputAmount: bigint } }).args)
    .filter((a) => a.depositor.toLowerCase().endsWith(address.slice(2).toLowerCase()));
  expect(deposits.map((d) => d.inputAmount)).toEqual([parseUnits("30", 6), parseUnits("40", 6)]);
  // Two transactions from the signer's key: nothing was sent twice.
  expect((await client.getTransactionCount({ address: signer })) - signerNonceBefore).toBe(2);
}, 120_000);
