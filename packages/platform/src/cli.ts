/**
 * The `platform` command: `start` (every service, `npm start`), `keys`, `migrate`, `config`, `devnet`,
 * `relayer` (the crosschain relayer role alone), `status` (background jobs), `jobs` (durable jobs and leases), `chainstats backfill`,
 * `secrets generate-key`.
 * Options come from the environment and `platform.config.json` (see `platform config`).
 */
import {
  type Config,
  ConfigError,
  createConfiguredLogger,
  loadConfig,
  onStopRequest,
  PLATFORM_ROLES,
  type PlatformRole,
} from "@platform/kernel";
import { Command, InvalidArgumentError } from "commander";
import { setCommandName } from "./commandName.ts";
import { humanOutput } from "./commands/banner.ts";
import {
  createBrokerageClient,
  createBrokerageKeyPair,
  createBrokerageUser,
  listBrokerageClients,
  listBrokerageUsers,
  revokeBrokerageClient,
  setBrokerageMarketData,
} from "./commands/brokerage.ts";
import { chainstatsBackfill } from "./commands/chainstats.ts";
import { configCommand } from "./commands/config.ts";
import { devnetCommand } from "./commands/devnet.ts";
import { jobActionCommand, listJobsCommand, listLeasesCommand } from "./commands/jobs.ts";
import { createKey, listKeys, revokeKey } from "./commands/keys.ts";
import { migrateCommand } from "./commands/migrate.ts";
import { relayerCommand } from "./commands/relayer.ts";
import { secretsGenerateKey } from "./commands/secrets.ts";
import { startPlatform } from "./commands/start.ts";
import { statusCommand } from "./commands/status.ts";
import { wearablesDemoData, wearablesImport } from "./commands/wearables.ts";

function config(): Config {
  return loadConfig();
}

/** Runs a command; a failure prints one clear line and exits 1 instead of a stack trace. */
const run =
  <A extends unknown[]>(fn: (...args: A) => Promise<void> | void) =>
  async (...args: A) => {
    try {
      await fn(...args);
    } catch (error) {
      process.stderr.write(`platform: ${(error as Error).message}\n`);
      if (!(error instanceof ConfigError) && process.env.DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
      process.exit(1);
    }
  };

/** Commander parser of a positive integer option (`--paper-accounts 2`). */
function positiveInteger(value: string): number {
  if (!/^[1-9]\d{0,5}$/.test(value)) throw new InvalidArgumentError("must be a positive integer");
  return Number(value);
}

/** Commander parser of `--role` (the same values as PLATFORM_ROLE). */
function role(value: string): PlatformRole {
  if (!(PLATFORM_ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PLATFORM_ROLES.join(", ")}`);
  }
  return value as PlatformRole;
}

/** Commander parser of a non-negative integer option (`--stream-connections 0`). */
function nonNegativeInteger(value: string): number {
  if (!/^(0|[1-9]\d{0,5})$/.test(value)) throw new InvalidArgumentError("must be a whole number");
  return Number(value);
}

const program = new Command("platform").description("Run and operate the platform's services").showHelpAfterError();
// The command's name without its arguments: a folder lock tells other processes who holds it.
program.hook("preAction", (_program, action) => {
  const names: string[] = [];
  for (let c: Command | null = action; c; c = c.parent) names.unshift(c.name());
  setCommandName(names.join(" "));
});

/**
 * Stops a long-running command (`start`, `relayer`) once, on Ctrl-C, SIGTERM, SIGHUP or its parent's end, then
 * exits; a second request exits at once.
 */
function stopOnRequest(stop: () => Promise<void>, out: NodeJS.WriteStream): void {
  // After SIGHUP the terminal may be gone: a failed write must not crash the stop.
  const ignore = () => {};
  onStopRequest(
    async (reason) => {
      process.stdout.on("error", ignore);
      process.stderr.on("error", ignore);
      out.write(`\nStopping (${reason})...\n`);
      await stop();
      process.exit(0);
    },
    { onForcedExit: (reason) => process.stderr.write(`platform: ${reason} again, exiting at once\n`) },
  );
}

program
  .command("start")
  .description("start every service with embedded defaults (npm start)")
  .option("--reset-devnet", "start the devnet chains from scratch (deletes their saved state)")
  .option(
    "--role <role>",
    "all (default, PLATFORM_ROLE), api (HTTP only) or worker (background jobs only); api and worker need DATABASE_URL",
    role,
  )
  .action(
    run(async (o: { resetDevnet?: boolean; role?: PlatformRole }) => {
      // Watched from the first instant: a stop asked for while the platform starts waits for the start to end.
      const c = config();
      const starting = startPlatform(c, o);
      stopOnRequest(async () => (await starting.catch(() => undefined))?.stop(), humanOutput(c));
      await starting;
    }),
  );

const keys = program.command("keys").description("manage API keys");
keys
  .command("create")
  .description("create an API key (printed once)")
  .requiredOption("--service <name>", "service the key is for")
  .option("--name <label>", "label", "default")
  .option("--plan <plan>", "plan of the key, for services that have plans")
  .option("--json", 'print {"service","name","key"} as JSON')
  .action(run((o: { service: string; name?: string; plan?: string; json?: boolean }) => createKey(config(), o)));
keys
  .command("list")
  .description("list API keys (prefixes only)")
  .option("--service <name>", "only this service's keys")
  .option("--json", "print JSON")
  .action(run((o: { service?: string; json?: boolean }) => listKeys(config(), o)));
keys
  .command("revoke <id>")
  .description("revoke an API key by id")
  .action(run((id: string) => revokeKey(config(), id)));

const jobs = program.command("jobs").description("the durable jobs and leases of every service");
jobs
  .command("list")
  .description("list jobs, newest first: state, attempts, holder, last error")
  .option("--queue <name>", "only this queue's jobs")
  .option("--state <state>", "only jobs in this state (queued, active, completed, dead, cancelled)")
  .option("--limit <n>", "at most this many (default 100, at most 1000)", positiveInteger)
  .option("--json", "print JSON")
  .action(run((o: { queue?: string; state?: string; limit?: number; json?: boolean }) => listJobsCommand(config(), o)));
jobs
  .command("leases")
  .description("list leases: holder, fencing token, expiry")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => listLeasesCommand(config(), o)));
jobs
  .command("retry <id>")
  .description("queue a dead, cancelled or completed job again, its attempts from zero")
  .action(run((id: string) => jobActionCommand(config(), "retry", id)));
jobs
  .command("cancel <id>")
  .description("cancel a queued or active job")
  .action(run((id: string) => jobActionCommand(config(), "cancel", id)));

program
  .command("devnet")
  .description("run the devnet chains alone (anvil + Across contracts + tokens + Uniswap V2)")
  .option("--reset", "start every chain from scratch (deletes saved chain state)")
  .action(
    run(async (o: { reset?: boolean }) => {
      const c = config();
      await devnetCommand(c, createConfiguredLogger(c), o);
      process.exit(0);
    }),
  );

program
  .command("status")
  .description(
    "the platform's instances and their roles, leases, and what background jobs are doing (indexers, relayer)",
  )
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => statusCommand(config(), o)));

program
  .command("relayer")
  .description("run the crosschain relayer role alone (fills pending deposits with its key) until Ctrl-C")
  .option("--no-indexer", "do not index the SpokePools here (other instances do)")
  .action(
    run(async (o: { indexer: boolean }) => {
      const c = config();
      stopOnRequest(await relayerCommand(c, o), humanOutput(c));
    }),
  );

const chainstats = program.command("chainstats").description("chain statistics service");
chainstats
  .command("backfill")
  .description("index one chain in the foreground with a progress bar, then follow its head")
  .requiredOption("--chain <id>", "chain id")
  .option("--from <block>", "re-index the chain from this block")
  .option("--exit-when-synced", "exit once the head is reached instead of following it")
  .action(run((o: { chain: string; from?: string; exitWhenSynced?: boolean }) => chainstatsBackfill(config(), o)));

const wearables = program.command("wearables").description("wearable health data: imports and demo data");
wearables
  .command("import <user_id> <file>")
  .description(
    "import an Apple Health export (export.xml or export.zip) or a FIT/GPX/TCX workout file, with a progress bar",
  )
  .option("--kind <kind>", "apple, fit, gpx or tcx (default: from the file name)")
  .option("--json", "print the finished job as JSON")
  .action(
    run((userId: string, file: string, o: { kind?: string; json?: boolean }) =>
      wearablesImport(config(), userId, file, o),
    ),
  );

wearables
  .command("demo-data")
  .description("write a plausible year (or --days N) of one person's health data through the import path")
  .option("--user <user_id>", "whose data (default: the demo user demo@example.com, created the first time)")
  .option("--days <n>", "days of data, ending yesterday", positiveInteger, 365)
  .option("--seed <n>", "the generator's seed (same seed, same data)", positiveInteger, 1)
  .option("--json", "print the finished import job as JSON")
  .action(run((o: { user?: string; days?: number; seed?: number; json?: boolean }) => wearablesDemoData(config(), o)));

const brokerage = program.command("brokerage").description("brokerage end users, OAuth clients and key pairs");
const brokerageUsers = brokerage.command("users").description("end users and their live and paper accounts");
brokerageUsers
  .command("create")
  .description("create a user with one live account and N paper accounts")
  .requiredOption("--email <email>", "the user's email (login)")
  .requiredOption("--password <password>", "the user's password (8 to 256 characters); - reads it from stdin")
  .option("--paper-accounts <n>", "number of paper accounts (1 to 10)", positiveInteger, 1)
  .option("--json", "print the user and its accounts as JSON")
  .action(
    run((o: { email: string; password: string; paperAccounts?: number; json?: boolean }) =>
      createBrokerageUser(config(), o),
    ),
  );
brokerageUsers
  .command("list")
  .description("list users with their accounts")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => listBrokerageUsers(config(), o)));
brokerageUsers
  .command("market-data")
  .description("set a user's market data plan and how many data streams they may hold at once")
  .requiredOption("--email <email>", "the user's email")
  .option("--plan <plan>", "basic (the IEX feed, 30 symbols per stream) or plus (every feed, no symbol limit)")
  .option(
    "--stream-connections <n>",
    "data stream connections at once (the anchor's 1; 0 shuts them out)",
    nonNegativeInteger,
  )
  .option("--json", "print JSON")
  .action(
    run((o: { email: string; plan?: string; streamConnections?: number; json?: boolean }) =>
      setBrokerageMarketData(config(), o),
    ),
  );
const brokerageClients = brokerage.command("clients").description("OAuth clients (third-party applications)");
brokerageClients
  .command("create")
  .description("register an application (its client_secret is printed once)")
  .requiredOption("--name <app>", "application name, shown on the consent page")
  .requiredOption(
    "--redirect-uri <uri>",
    "a redirect URI, matched exactly (repeat for several)",
    (uri: string, previous: string[] = []) => [...previous, uri],
  )
  .option("--json", 'print {"client_id","client_secret","name","redirect_uris"} as JSON')
  .action(run((o: { name: string; redirectUri: string[]; json?: boolean }) => createBrokerageClient(config(), o)));
brokerageClients
  .command("list")
  .description("list applications (without secrets)")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => listBrokerageClients(config(), o)));
brokerageClients
  .command("revoke <client_id>")
  .description("revoke an application and every access token issued to it")
  .action(run((clientId: string) => revokeBrokerageClient(config(), clientId)));
brokerage
  .command("keys")
  .description("API key pairs (APCA-API-KEY-ID / APCA-API-SECRET-KEY)")
  .command("create")
  .description("create a key pair for one account (its secret is printed once)")
  .requiredOption("--account <account>", "account id or account number")
  .option("--json", 'print {"key_id","secret_key","account_id","account_number","env"} as JSON')
  .action(run((o: { account: string; json?: boolean }) => createBrokerageKeyPair(config(), o)));

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(run(() => migrateCommand(config())));

const secrets = program.command("secrets").description("keys of the secrets encrypted at rest (SECRETS_KEYS)");
secrets
  .command("generate-key")
  .description("print a new SECRETS_KEYS entry, <id>:<base64 of 32 random bytes>")
  .option("--id <id>", "key id, 1 to 32 of A-Z a-z 0-9 _ - (default k<YYYYMMDD>)")
  .action(run((o: { id?: string }) => secretsGenerateKey(o)));

program
  .command("config")
  .description("print every configuration option with its default and value")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => configCommand(config(), o)));

await program.parseAsync(process.argv);
