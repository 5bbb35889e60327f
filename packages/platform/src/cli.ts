/**
 * The `platform` command: `start` (every service, `npm start`), `keys`, `migrate`, `config`, `devnet`,
 * `relayer` (the crosschain relayer role alone), `status` (background jobs), `chainstats backfill`.
 * Options come from the environment and `platform.config.json` (see `platform config`).
 */
import { type Config, ConfigError, createLogger, loadConfig } from "@platform/kernel";
import { Command } from "commander";
import { chainstatsBackfill } from "./commands/chainstats.ts";
import { configCommand } from "./commands/config.ts";
import { devnetCommand } from "./commands/devnet.ts";
import { createKey, listKeys, revokeKey } from "./commands/keys.ts";
import { migrateCommand } from "./commands/migrate.ts";
import { relayerCommand } from "./commands/relayer.ts";
import { startPlatform } from "./commands/start.ts";
import { statusCommand } from "./commands/status.ts";

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

const program = new Command("platform").description("Run and operate the platform's services").showHelpAfterError();

program
  .command("start")
  .description("start every service with embedded defaults (npm start)")
  .option("--reset-devnet", "start the devnet chains from scratch (deletes their saved state)")
  .action(
    run(async (o: { resetDevnet?: boolean }) => {
      const running = await startPlatform(config(), o);
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) {
          process.stderr.write(`platform: ${signal} again, exiting at once\n`);
          process.exit(1);
        }
        stopping = true;
        process.stdout.write(`\nStopping (${signal})...\n`);
        await running.stop();
        process.exit(0);
      };
      process.on("SIGINT", () => void shutdown("SIGINT"));
      process.on("SIGTERM", () => void shutdown("SIGTERM"));
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

program
  .command("devnet")
  .description("run the devnet chains alone (anvil + Across contracts + tokens + Uniswap V2)")
  .option("--reset", "start every chain from scratch (deletes saved chain state)")
  .action(
    run(async (o: { reset?: boolean }) => {
      const c = config();
      await devnetCommand(c, createLogger({ level: c.logLevel }), o);
      process.exit(0);
    }),
  );

program
  .command("status")
  .description("what the running platform's background jobs are doing (indexers, relayer)")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => statusCommand(config(), o)));

program
  .command("relayer")
  .description("run the crosschain relayer role alone (fills pending deposits with its key) until Ctrl-C")
  .option("--no-indexer", "do not index the SpokePools here (other instances do)")
  .action(
    run(async (o: { indexer: boolean }) => {
      const stop = await relayerCommand(config(), o);
      const shutdown = async () => {
        await stop();
        process.exit(0);
      };
      process.once("SIGINT", () => void shutdown());
      process.once("SIGTERM", () => void shutdown());
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

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(run(() => migrateCommand(config())));

program
  .command("config")
  .description("print every configuration option with its default and value")
  .option("--json", "print JSON")
  .action(run((o: { json?: boolean }) => configCommand(config(), o)));

await program.parseAsync(process.argv);
