/**
 * Balance reads as Multicall3 calls: an ERC-20's `balanceOf`, the native coin through Multicall3's
 * `getEthBalance` (so both kinds go in one multicall), and the Multicall3 of a chain. The chain-state cache
 * (the relayer's balances), the swap quote's checks and the deposit-address watcher read balances this way.
 */
import { type Address, parseAbi } from "viem";
import type { SpokeChain } from "../deployments.ts";

/** Canonical Multicall3 address (used when a chain does not list its own `multicall3`). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

const erc20BalanceAbi = parseAbi(["function balanceOf(address) view returns (uint256)"]);
const ethBalanceAbi = parseAbi(["function getEthBalance(address) view returns (uint256)"]);

/** The chain's Multicall3. */
export const multicallAddressOf = (chain: SpokeChain): Address => chain.contracts.multicall3 ?? MULTICALL3_ADDRESS;

export const tokenBalanceCall = (token: Address, owner: Address) =>
  ({ address: token, abi: erc20BalanceAbi, functionName: "balanceOf", args: [owner] }) as const;

export const nativeBalanceCall = (multicall3: Address, owner: Address) =>
  ({ address: multicall3, abi: ethBalanceAbi, functionName: "getEthBalance", args: [owner] }) as const;
