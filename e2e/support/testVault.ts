/**
 * A small vault the swap end-to-end test deploys on the destination chain, compiled in process with solc-js:
 * `deposit(token, owner, amount)` pulls `amount` of `token` from the caller (the MulticallHandler running an
 * embedded action) and credits `owner`. It is what "an action that changes state on the destination" means.
 */
import solc from "solc";
import type { Abi, Address, Hex } from "viem";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
interface IERC20 { function transferFrom(address from, address to, uint256 amount) external returns (bool); }
contract TestVault {
  mapping(address => mapping(address => uint256)) public balances;
  event Deposited(address indexed token, address indexed owner, uint256 amount);
  function deposit(address token, address owner, uint256 amount) external {
    require(amount > 0, "nothing to deposit");
    require(IERC20(token).transferFrom(msg.sender, address(this), amount), "transfer failed");
    balances[token][owner] += amount;
    emit Deposited(token, owner, amount);
  }
}`;

export function compileTestVault(): { abi: Abi; bytecode: Hex } {
  const input = {
    language: "Solidity",
    sources: { "TestVault.sol": { content: SOURCE } },
    settings: { outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n"));
  const contract = output.contracts["TestVault.sol"].TestVault;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/**
 * The embedded actions (app-sdk `Action`s) that put the MulticallHandler's whole balance of `token` into
 * `vault` for `owner`: approve the vault for that balance, then deposit it (both amounts filled at fill time).
 */
export function vaultDepositActions(token: Address, vault: Address, owner: Address) {
  const wholeBalance = { value: 0n, populateDynamically: true, balanceSourceToken: token };
  return [
    {
      target: token,
      functionSignature: "function approve(address spender, uint256 amount)",
      args: [{ value: vault }, wholeBalance],
      value: 0n,
    },
    {
      target: vault,
      functionSignature: "function deposit(address token, address owner, uint256 amount)",
      args: [{ value: token }, { value: owner }, wholeBalance],
      value: 0n,
    },
  ];
}
