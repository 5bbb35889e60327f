import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Abi, Hex } from "viem";

/**
 * Compiled contracts, read unmodified from the npm packages that publish them:
 * - `@across-protocol/contracts` (AGPL-3.0; the counterfactual contracts carry BUSL-1.1 headers):
 *   `dist/evm/artifacts/<File>.sol/<Name>.json`, `{ abi, bytecode }`.
 * - `@uniswap/v2-core` / `@uniswap/v2-periphery` (GPL-3.0): `build/<Name>.json`.
 * - `@uniswap/v3-core` (BUSL-1.1, GPL-2.0-or-later since its change date) / `@uniswap/v3-periphery`
 *   (GPL-2.0-or-later): `artifacts/contracts/<File>.sol/<Name>.json` (hardhat artifacts).
 * We only deploy these bytecodes and read their ABIs; nothing is recompiled or patched.
 */
export interface Artifact {
  name: string;
  abi: Abi;
  bytecode: Hex;
}

const require = createRequire(import.meta.url);

function packageDir(pkg: string): string {
  return dirname(require.resolve(`${pkg}/package.json`));
}

function packageVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(packageDir(pkg), "package.json"), "utf8")) as { version: string }).version;
}

/** Where each contract we deploy lives: package and path inside it. */
const SOURCES = {
  WETH9: ["@across-protocol/contracts", "dist/evm/artifacts/WETH9.sol/WETH9.json"],
  ExpandedERC20: ["@across-protocol/contracts", "dist/evm/artifacts/ExpandedERC20.sol/ExpandedERC20.json"],
  Ethereum_SpokePool: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/Ethereum_SpokePool.sol/Ethereum_SpokePool.json",
  ],
  ERC1967Proxy: ["@across-protocol/contracts", "dist/evm/artifacts/ERC1967Proxy.sol/ERC1967Proxy.json"],
  Multicall3: ["@across-protocol/contracts", "dist/evm/artifacts/Multicall3.sol/Multicall3.json"],
  MulticallHandler: ["@across-protocol/contracts", "dist/evm/artifacts/MulticallHandler.sol/MulticallHandler.json"],
  MockPermit2: ["@across-protocol/contracts", "dist/evm/artifacts/MockPermit2.sol/MockPermit2.json"],
  SpokePoolPeriphery: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/SpokePoolPeriphery.sol/SpokePoolPeriphery.json",
  ],
  CounterfactualBeaconBootstrap: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/CounterfactualBeaconBootstrap.sol/CounterfactualBeaconBootstrap.json",
  ],
  CounterfactualBeacon: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/CounterfactualBeacon.sol/CounterfactualBeacon.json",
  ],
  CounterfactualDeposit: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/CounterfactualDeposit.sol/CounterfactualDeposit.json",
  ],
  CounterfactualDepositFactory: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/CounterfactualDepositFactory.sol/CounterfactualDepositFactory.json",
  ],
  CounterfactualDepositSpokePool: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/CounterfactualDepositSpokePool.sol/CounterfactualDepositSpokePool.json",
  ],
  WithdrawImplementation: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/WithdrawImplementation.sol/WithdrawImplementation.json",
  ],
  AdminWithdrawManager: [
    "@across-protocol/contracts",
    "dist/evm/artifacts/AdminWithdrawManager.sol/AdminWithdrawManager.json",
  ],
  LpTokenFactory: ["@across-protocol/contracts", "dist/evm/artifacts/LpTokenFactory.sol/LpTokenFactory.json"],
  HubPool: ["@across-protocol/contracts", "dist/evm/artifacts/HubPool.sol/HubPool.json"],
  AcrossConfigStore: ["@across-protocol/contracts", "dist/evm/artifacts/AcrossConfigStore.sol/AcrossConfigStore.json"],
  Timer: ["@across-protocol/contracts", "dist/evm/artifacts/Timer.sol/Timer.json"],
  BondToken: ["@across-protocol/contracts", "dist/evm/artifacts/BondToken.sol/BondToken.json"],
  Mock_Adapter: ["@across-protocol/contracts", "dist/evm/artifacts/Mock_Adapter.sol/Mock_Adapter.json"],
  Mock_Bridge: ["@across-protocol/contracts", "dist/evm/artifacts/Mock_Adapter.sol/Mock_Bridge.json"],
  MerkleLibTest: ["@across-protocol/contracts", "dist/evm/artifacts/MerkleLibTest.sol/MerkleLibTest.json"],
  UniswapV2Factory: ["@uniswap/v2-core", "build/UniswapV2Factory.json"],
  UniswapV2Pair: ["@uniswap/v2-core", "build/UniswapV2Pair.json"],
  UniswapV2Router02: ["@uniswap/v2-periphery", "build/UniswapV2Router02.json"],
  UniswapV3Factory: ["@uniswap/v3-core", "artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json"],
  UniswapV3Pool: ["@uniswap/v3-core", "artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"],
  SwapRouter: ["@uniswap/v3-periphery", "artifacts/contracts/SwapRouter.sol/SwapRouter.json"],
  NonfungiblePositionManager: [
    "@uniswap/v3-periphery",
    "artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  ],
} as const satisfies Record<string, readonly [string, string]>;

/** Names of the contracts the devnet deploys. */
export type ArtifactName = keyof typeof SOURCES;

const cache = new Map<ArtifactName, Artifact>();

/** Loads (once) the ABI and creation bytecode of a contract from its npm package. */
export function loadArtifact(name: ArtifactName): Artifact {
  const hit = cache.get(name);
  if (hit) return hit;
  const [pkg, path] = SOURCES[name];
  const json = JSON.parse(readFileSync(join(packageDir(pkg), path), "utf8")) as {
    abi: Abi;
    bytecode: string | { object: string };
  };
  const raw = typeof json.bytecode === "string" ? json.bytecode : json.bytecode.object;
  const bytecode = (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex;
  const artifact: Artifact = { name, abi: json.abi, bytecode };
  cache.set(name, artifact);
  return artifact;
}

/** Versions of the packages that provide bytecode (recorded in the manifest, part of the template cache key). */
export function artifactVersions(): Record<string, string> {
  const pkgs = [
    "@across-protocol/contracts",
    "@uniswap/v2-core",
    "@uniswap/v2-periphery",
    "@uniswap/v3-core",
    "@uniswap/v3-periphery",
  ];
  return Object.fromEntries(pkgs.map((p) => [p, packageVersion(p)]));
}

/** A digest of every bytecode the devnet deploys: changes whenever an artifact changes. */
export function artifactsDigest(): string {
  const h = createHash("sha256");
  for (const name of Object.keys(SOURCES) as ArtifactName[]) {
    h.update(name).update(loadArtifact(name).bytecode);
  }
  return h.digest("hex");
}
