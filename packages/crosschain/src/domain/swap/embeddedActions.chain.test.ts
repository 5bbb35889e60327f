/**
 * The encoding against Across' real MulticallHandler on a devnet chain, without a fill: the handler's
 * `handleV3AcrossMessage` is public, so a user funds the handler and calls it with the message directly.
 * This checks the replacement offsets (4 + 32·i for an argument, the appended word for the call value)
 * against the contract's own reading of them.
 */
import { useDevnet } from "@platform/chains/testing";
import { type Address, erc20Abi, type Hex, parseAbi, parseEther, parseUnits, zeroAddress } from "viem";
import { expect, it } from "vitest";
import { type EmbeddedAction, encodeEmbeddedActions, encodeMulticallMessage } from "./embeddedActions.ts";

const CHAIN = 10;
const devnet = useDevnet({ chainIds: [CHAIN] });
const recipient: Address = "0x000000000000000000000000000000000000bEEF";
const handlerAbi = parseAbi([
  "function handleV3AcrossMessage(address token, uint256 amount, address relayer, bytes message)",
]);

function setup() {
  const f = devnet();
  const chain = f.chain(CHAIN);
  const user = f.accounts.users[0]!;
  const wallet = f.walletClient(CHAIN, user);
  const client = f.publicClient(CHAIN);
  const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  const handler = chain.contracts.multicallHandler;
  const weth = chain.wrappedNativeToken;
  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
  };
  /** Runs `actions` as the handler would after a fill of `token`; no fallback, so a failing call reverts. */
  const run = async (token: Address, actions: EmbeddedAction[]) => {
    const message = encodeMulticallMessage(encodeEmbeddedActions(actions, { multicallHandler: handler }), zeroAddress);
    await mined(
      await wallet.writeContract({
        address: handler,
        abi: handlerAbi,
        functionName: "handleV3AcrossMessage",
        args: [token, 0n, user.address, message],
      }),
    );
  };
  const balanceOf = (token: Address, who: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  return { client, wallet, usdc, handler, weth, mined, run, balanceOf };
}

it("moves the handler's whole USDC balance with a populated transfer amount", async () => {
  const { wallet, usdc, handler, mined, run, balanceOf } = setup();
  const amount = parseUnits("5", 6);
  await mined(
    await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [handler, amount] }),
  );
  await run(usdc, [
    {
      target: usdc,
      functionSignature: "function transfer(address to, uint256 amount)",
      args: [{ value: recipient }, { value: "0", populateDynamically: true, balanceSourceToken: usdc }],
    },
  ]);
  expect(await balanceOf(usdc, recipient)).toBe(amount);
  expect(await balanceOf(usdc, handler)).toBe(0n);
});

it("sends the native balance as call value, then the wrapped balance on", async () => {
  const { client, wallet, handler, weth, mined, run, balanceOf } = setup();
  const amount = parseEther("0.25");
  await mined(await wallet.sendTransaction({ to: handler, value: amount }));
  await run(zeroAddress, [
    { target: weth, functionSignature: "function deposit()", populateCallValueDynamically: true },
    {
      target: weth,
      functionSignature: "transfer(address,uint256)",
      args: [{ value: recipient }, { value: 0, populateDynamically: true, balanceSourceToken: weth }],
    },
  ]);
  expect(await balanceOf(weth, recipient)).toBe(amount);
  expect(await client.getBalance({ address: handler })).toBe(0n);
});

it("drains the native balance for a dynamic native transfer", async () => {
  const { client, wallet, handler, mined, run } = setup();
  const amount = parseEther("0.1");
  await mined(await wallet.sendTransaction({ to: handler, value: amount }));
  await run(zeroAddress, [{ target: recipient, isNativeTransfer: true, populateCallValueDynamically: true }]);
  expect(await client.getBalance({ address: recipient })).toBe(amount);
  expect(await client.getBalance({ address: handler })).toBe(0n);
});
