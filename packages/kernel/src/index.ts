export {
  type ApiKeyRecord,
  type ApiKeyStore,
  type CreatedApiKey,
  createApiKeyStore,
  parseApiKey,
} from "./auth/apiKeys.ts";
export {
  type DevelopmentDefault,
  developmentDefaults,
  warnOfDevelopmentDefaults,
} from "./config/developmentDefaults.ts";
export { describeConfig, type LoadConfigParameters, loadConfig } from "./config/loadConfig.ts";
export { type Config, type ConfigKey, options } from "./config/options.ts";
export { ConfigError, type ConfigErrorType, type TrustProxy } from "./config/parsers.ts";
export { byteaToHex, hexDigits, hexToBytea } from "./db/bytea.ts";
export { type ConstraintViolation, constraintViolation } from "./db/constraintViolation.ts";
export { type CopyLines, copyHexField, createCopyLines } from "./db/copyText.ts";
export { createDatabase, type Database, type Queryable, type QueryOptions } from "./db/database.ts";
export { loadMigrations, type Migration, migrate } from "./db/migrate.ts";
export { type CreateOutboxReaderParameters, createOutboxReader, type OutboxReader } from "./db/outboxReader.ts";
export type { BodyLeniency } from "./http/bodyLeniency.ts";
export { closeGracefully, createHttpServer, type ErrorFormatter, type HttpServer } from "./http/createHttpServer.ts";
export { HttpError, type HttpErrorType, toHttpError } from "./http/httpError.ts";
export type { OpenApiErrors } from "./http/openapiDocument.ts";
export {
  INSTANCE_HEARTBEAT_MS,
  INSTANCE_TTL_MS,
  type InstanceRecord,
  listInstances,
  PLATFORM_ROLES,
  type PlatformRole,
  type RegisteredInstance,
  type RegisterInstanceParameters,
  registerInstance,
} from "./instances.ts";
export { toJobStatus } from "./jobStatus.ts";
export * from "./jobs/index.ts";
export { kernelMigrations } from "./kernelMigrations.ts";
export {
  addressKey,
  createFailedCredentials,
  createFailureWindow,
  type FailedCredentials,
  type FailureLimit,
  type FailureWindow,
  failureLimitOf,
  TOO_MANY_FAILURES_MESSAGE,
} from "./limits/failedCredentials.ts";
export {
  abortableSleep,
  type CreateRateBudgetParameters,
  createRateBudget,
  type RateBudget,
  type RateWindow,
} from "./limits/rateBudget.ts";
export {
  createMemoryRateCounter,
  createRateCounter,
  createRedisRateCounter,
  type RateCounter,
} from "./limits/rateCounter.ts";
export {
  createConfiguredLogger,
  createLogger,
  type Logger,
  logsRequests,
  resolveLogFormat,
} from "./log/logger.ts";
export { createPrettyDestination, formatLogLine } from "./log/pretty.ts";
export { redactSecretsDeep, redactSecretsInText, redactUrl } from "./log/redact.ts";
export {
  type AddressPolicy,
  type CreateAddressPolicyParameters,
  createAddressPolicy,
  InvalidNetworkError,
} from "./outbound/addressPolicy.ts";
export {
  type CreateGuardedHttpClientParameters,
  createGuardedHttpClient,
  type GuardedHttpClient,
  type GuardedRequest,
  type GuardedResponse,
  OutboundRefusedError,
  OutboundTimeoutError,
  outboundUrlRefusal,
} from "./outbound/guardedHttpClient.ts";
export {
  generateWebhookSecret,
  signWebhook,
  type WebhookHeadersParameters,
  webhookHeaders,
  webhookSecretBytes,
} from "./outbound/webhookSignature.ts";
export {
  type FolderLock,
  FolderLockedError,
  type FolderLockedErrorType,
  type FolderLockHolder,
  folderLockHolder,
  lockFolder,
} from "./process/folderLock.ts";
export { onStopRequest, type StopRequestsParameters } from "./process/stopRequests.ts";
export {
  type CreateSecretBoxParameters,
  createSecretBox,
  decodeSecretKey,
  SEALED_SECRET_VERSION,
  SealedSecretError,
  type SealedSecretErrorType,
  type SecretBox,
  type SecretKey,
  SecretKeyError,
  type SecretKeyErrorType,
  UnknownSecretKeyError,
  type UnknownSecretKeyErrorType,
} from "./secrets/secretBox.ts";
export {
  type ConfiguredSecretKey,
  createConfiguredSecretBox,
  DEVELOPMENT_KEY_FILE,
  DEVELOPMENT_KEY_ID,
  developmentSecretKey,
  generateSecretKeyEntry,
  parseSecretKeys,
  secretKeysProblem,
} from "./secrets/secretKeys.ts";
export {
  type BackgroundJob,
  type ChainEndpoint,
  type DemoCredentials,
  type JobStatus,
  type OperatorCommand,
  OperatorInputError,
  type OperatorInputErrorType,
  type PlatformContext,
  type ServiceDefinition,
  type ServiceHost,
  type ServiceInstance,
} from "./service.ts";
export {
  type ModuleThread,
  movableBytes,
  serveRequests,
  startModuleThread,
  type ThreadAnswer,
  ThreadError,
  type ThreadErrorType,
} from "./threads/moduleThread.ts";
