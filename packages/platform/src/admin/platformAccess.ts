/**
 * How a command reaches the platform's data. With PostgreSQL it opens the database itself: several processes
 * share one. An embedded database has one owner, the process that holds its folder's lock:
 * - a platform (`platform start`): the command goes through its admin socket, and waits for that socket while
 *   the platform starts (its servers answer before the socket exists; its lock says it is there);
 * - nobody: the command takes the lock and opens the folder itself (closed and freed by `platform.close()`);
 * - anything else (`platform relayer`, a backfill, another command): the command fails, naming it.
 */
import { type Config, FolderLockedError, type FolderLockHolder, folderLockHolder } from "@platform/kernel";
import { embeddedDatabaseFolder, type OpenPlatformOptions, openPlatform, type Platform } from "../openPlatform.ts";
import { isPlatformRunning } from "./adminSocket.ts";

export type PlatformAccess = { through: "admin" } | { through: "database"; platform: Platform };

/** How long a command waits for a starting platform's admin socket (a first start deploys seven chains). */
const START_WAIT_MS = 300_000;
const POLL_MS = 100;

export async function reachPlatform(config: Config, options: OpenPlatformOptions = {}): Promise<PlatformAccess> {
  if (config.databaseUrl) return { through: "database", platform: await openPlatform(config, options) };
  const waiting = startWaiting(config);
  for (;;) {
    if (await isPlatformRunning(config.dataDir)) return { through: "admin" };
    try {
      return { through: "database", platform: await openPlatform(config, options) };
    } catch (error) {
      if (!(error instanceof FolderLockedError)) throw error;
      if (!error.holder?.servesAdmin) throw inUseError(config, error.holder);
      await waiting(error.holder);
    }
  }
}

/**
 * True when a platform answers on the admin socket of `config.dataDir`, once it has started if it is starting
 * (an embedded one holds its folder's lock from its first instant); false when none runs there.
 */
export async function platformAnswers(config: Config): Promise<boolean> {
  const folder = embeddedDatabaseFolder(config);
  const waiting = startWaiting(config);
  for (;;) {
    if (await isPlatformRunning(config.dataDir)) return true;
    const holder = folder ? await folderLockHolder(folder) : undefined;
    if (!holder?.servesAdmin) return false;
    await waiting(holder);
  }
}

/** `openPlatform`, whose refusal on an owned embedded database names the owner and what to do. */
export async function openPlatformOrExplain(config: Config, options: OpenPlatformOptions = {}): Promise<Platform> {
  try {
    return await openPlatform(config, options);
  } catch (error) {
    if (error instanceof FolderLockedError) throw inUseError(config, error.holder);
    throw error;
  }
}

/** The error of a command that finds the embedded database owned by a process it cannot go through. */
export function inUseError(config: Config, holder: FolderLockHolder | undefined): Error {
  const who = holder ? `\`${holder.command}\` (pid ${holder.pid})` : "another process";
  return new Error(
    `The embedded database in ${config.dataDir} is in use by ${who}: it has one owner at a time. ` +
      "Stop that process first, or run both on PostgreSQL (DATABASE_URL)",
  );
}

/** One wait of a poll loop for a starting platform: says so once on stderr, gives up after START_WAIT_MS. */
function startWaiting(config: Config): (holder: FolderLockHolder) => Promise<void> {
  const deadline = Date.now() + START_WAIT_MS;
  let told = false;
  return async (holder) => {
    if (Date.now() > deadline) {
      throw new Error(
        `The platform on ${config.dataDir} (pid ${holder.pid}) has not opened its admin socket after ` +
          `${START_WAIT_MS / 1000} s; see its log`,
      );
    }
    if (!told) {
      process.stderr.write(`Waiting for the platform on ${config.dataDir} (pid ${holder.pid}) to finish starting...\n`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  };
}
