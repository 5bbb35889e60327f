// Public surface of @platform/chains: the chain registry, viem clients, and the local devnet.
// The vitest fixture lives in "@platform/chains/testing" so production code never imports test tooling.

export { createEventDecoder, type EventDecoder } from "./abi/eventDecoder.ts";
export { keccak256Bytes, keccak256Hex } from "./abi/keccak.ts";
export {
  DEVNET_MNEMONIC,
  type DevnetAccount,
  type DevnetAccounts,
  type DevnetRole,
  devnetAccounts,
} from "./accounts.ts";
export { type AnvilNode, type AnvilOptions, anvilBinaryPath, startAnvil } from "./anvil.ts";
export { type Artifact, type ArtifactName, artifactVersions, loadArtifact } from "./artifacts.ts";
export { createChainClient, createChainWalletClient, transportFor, viemChain } from "./clients.ts";
export {
  DEPOSIT_QUOTE_TIME_BUFFER,
  DEVNET_RATE_MODEL,
  type DevnetContracts,
  type DevnetPool,
  type DevnetToken,
  type DevnetV3Pool,
  FILL_DEADLINE_BUFFER,
  httpRpc,
  INITIAL_DEPOSIT_ID,
  pairAddress,
} from "./deploy.ts";
export { type Devnet, type StartDevnetOptions, startDevnet } from "./devnet.ts";
export {
  type BlockFetcher,
  type BlockHeader,
  type CreateBlockFetcherParameters,
  createBlockFetcher,
  type LogFilter,
} from "./indexing/blockFetcher.ts";
export {
  type ChainBlock,
  type ChainFollower,
  type CreateChainFollowerParameters,
  createChainFollower,
  type FollowerCheckpoint,
  type FollowerStatus,
  type FollowerStore,
  type HeaderSource,
  type ReadRange,
  type StoredRange,
} from "./indexing/chainFollower.ts";
export { type FindCommonAncestorParameters, findCommonAncestor } from "./indexing/commonAncestor.ts";
export {
  type CreateIndexerLeaseParameters,
  createIndexerLease,
  INDEXER_LEASE_TTL_MS,
  type IndexerLease,
  type WriteFence,
} from "./indexing/indexerLease.ts";
export { type IndexerLoop, type IndexerLoopParameters, startIndexerLoop } from "./indexing/indexerLoop.ts";
export { HEX_VALUE, LOG_FIELD, LogsView, type RpcLog, scanLogsReply } from "./indexing/logsView.ts";
export {
  type RpcErrorType,
  RpcRequestError,
  type RpcRequestErrorType,
  RpcResponseError,
  type RpcResponseErrorType,
} from "./indexing/rpcErrors.ts";
export {
  DEVNET_WARNING,
  type DevnetChainManifest,
  type DevnetManifest,
  manifestChain,
  manifestChainEndpoints,
  manifestToken,
  readManifest,
} from "./manifest.ts";
export {
  type ChainInfo,
  chains,
  DEFAULT_DEVNET_CHAINS,
  DEFAULT_DEVNET_PORTS,
  devnetBlockTime,
  getChain,
} from "./registry.ts";
export {
  encodeSqrtPriceX96,
  encodeV3Path,
  fullRangeTicks,
  priceFromSqrtPriceX96,
  V3_MAX_TICK,
  V3_MIN_TICK,
  V3_POOL_INIT_CODE_HASH,
  v3PoolAddress,
} from "./uniswapV3.ts";
