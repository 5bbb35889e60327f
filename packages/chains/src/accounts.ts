import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * Devnet accounts: the first keys of anvil's default mnemonic ("test test ... junk").
 * These keys are PUBLIC KNOWLEDGE: anyone can sign with them. They exist only so that the devnet is
 * reproducible (fixed deployer key => identical contract addresses on every chain and every run).
 * Never fund them on a real network.
 */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";

/** The role an account plays on the devnet. */
export type DevnetRole = "admin" | "relayer" | "user" | "signer";

/** One devnet account, with its publicly known private key. */
export interface DevnetAccount {
  role: DevnetRole;
  /** Short stable label, e.g. "admin", "relayer", "user1". */
  name: string;
  address: Address;
  privateKey: Hex;
  /** Index in the anvil mnemonic (m/44'/60'/0'/0/<index>). */
  mnemonicIndex: number;
}

// Keys of anvil's mnemonic at indexes 0..5, precomputed: deriving them from the mnemonic (PBKDF2 + BIP32)
// would cost startup time on every run for no benefit.
const KEYS: readonly Hex[] = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
];

function account(role: DevnetRole, name: string, index: number): DevnetAccount {
  const privateKey = KEYS[index];
  if (!privateKey) throw new Error(`no devnet key at index ${index}`);
  return { role, name, address: privateKeyToAccount(privateKey).address, privateKey, mnemonicIndex: index };
}

/** The fixed devnet accounts, identical on every chain. */
export interface DevnetAccounts {
  /** Deployer of every contract, owner of the SpokePool and counterfactual beacon, token minter, AMM LP. */
  admin: DevnetAccount;
  /** Holds tokens and gas on every chain to fill relays. */
  relayer: DevnetAccount;
  /** Signs counterfactual deposit executions (the CounterfactualBeacon `signer`). */
  signer: DevnetAccount;
  /** Demo users holding tokens and gas. */
  users: DevnetAccount[];
}

/** Builds the fixed devnet account set (admin = mnemonic index 0, relayer = 1, users = 2..4, signer = 5). */
export function devnetAccounts(): DevnetAccounts {
  return {
    admin: account("admin", "admin", 0),
    relayer: account("relayer", "relayer", 1),
    users: [account("user", "user1", 2), account("user", "user2", 3), account("user", "user3", 4)],
    signer: account("signer", "signer", 5),
  };
}
