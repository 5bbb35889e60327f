/**
 * Defaults that make `platform start` work on a laptop with nothing configured, and that are unsafe in
 * production. Each one in effect is logged as a warning at start (one line each, naming the option and
 * what to set instead), as oidc-provider does for its development-only defaults.
 *
 * @example
 * warnOfDevelopmentDefaults(config, logger);
 * // {"level":40,"option":"DEVNET","production":"DEVNET=false, and CHAIN_RPC_URLS …","msg":"development default in effect: DEVNET is on: …"}
 */
import type { Logger } from "../log/logger.ts";
import type { Config } from "./options.ts";

export interface DevelopmentDefault {
  /** The environment variable of the option. */
  option: string;
  /** What the value in effect does that production must not. */
  risk: string;
  /** What to set in production. */
  production: string;
}

/** The development defaults in effect in `config`, in a stable order (empty when none is). */
export function developmentDefaults(config: Config): DevelopmentDefault[] {
  const found: DevelopmentDefault[] = [];
  if (config.devnet) {
    found.push({
      option: "DEVNET",
      risk: "DEVNET is on: chains are local anvil nodes whose accounts have publicly known keys",
      production: "DEVNET=false, and CHAIN_RPC_URLS for the chains the services use",
    });
  }
  const runsRelayer = config.crosschainRelayer && (config.services as string[]).includes("crosschain");
  if (config.devnet && runsRelayer && !config.crosschainRelayerKey) {
    found.push({
      option: "CROSSCHAIN_RELAYER_KEY",
      risk: "CROSSCHAIN_RELAYER_KEY is unset: the relayer fills with the devnet's relayer account, a publicly known key",
      production: "CROSSCHAIN_RELAYER_KEY=<the relayer's own private key>, or CROSSCHAIN_RELAYER=false",
    });
  }
  if (config.devnet && (config.services as string[]).includes("crosschain") && !config.crosschainDepositAddressKey) {
    found.push({
      option: "CROSSCHAIN_DEPOSIT_ADDRESS_KEY",
      risk: "CROSSCHAIN_DEPOSIT_ADDRESS_KEY is unset: deposit addresses are signed for and emptied with the devnet's signer account, a publicly known key",
      production: "CROSSCHAIN_DEPOSIT_ADDRESS_KEY=<the CounterfactualBeacon signer's private key>",
    });
  }
  if (
    config.devnet &&
    config.crosschainSettlement &&
    (config.services as string[]).includes("crosschain") &&
    !config.crosschainSettlementKey
  ) {
    found.push({
      option: "CROSSCHAIN_SETTLEMENT_KEY",
      risk: "CROSSCHAIN_SETTLEMENT_KEY is unset: root bundles are proposed and executed with the devnet's admin account, a publicly known key",
      production: "CROSSCHAIN_SETTLEMENT_KEY=<the trusted proposer's private key>, or CROSSCHAIN_SETTLEMENT=false",
    });
  }
  if (!config.databaseUrl) {
    found.push({
      option: "DATABASE_URL",
      risk: "DATABASE_URL is unset: the embedded PGlite database under DATA_DIR (one process, no replication or managed backups)",
      production: "DATABASE_URL=postgres://… (a PostgreSQL server)",
    });
  }
  if (!config.secretsKeys) {
    // On PostgreSQL another instance would hold another key in its own DATA_DIR and fail to open what this
    // one sealed: said here, since `--role all` still starts (api and worker refuse, secretKeys.ts).
    const shared = config.databaseUrl ? ", not shared with other instances on the database" : "";
    found.push({
      option: "SECRETS_KEYS",
      risk: `SECRETS_KEYS is unset: secrets at rest (vendor OAuth tokens) are sealed with a development key kept in DATA_DIR/secrets.key (lost with DATA_DIR${shared})`,
      production: "SECRETS_KEYS=<id>:<base64 of 32 random bytes> (`platform secrets generate-key`)",
    });
  }
  return found;
}

/** Logs each development default in effect in `config`: one structured `warn` line each. */
export function warnOfDevelopmentDefaults(config: Config, logger: Logger): void {
  for (const d of developmentDefaults(config)) {
    logger.warn({ option: d.option, production: d.production }, `development default in effect: ${d.risk}`);
  }
}
