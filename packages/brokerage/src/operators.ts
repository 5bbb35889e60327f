/**
 * What operators run on the brokerage (`platform brokerage users|clients|keys …`): named commands taking
 * JSON arguments and answering JSON. The running platform serves them on its admin socket; without one the
 * CLI builds them on the opened database. Each checks its arguments, and every refusal an operator can fix
 * (a bad argument, a taken email, an unknown client or account) is an `OperatorInputError` with a clear
 * message. `seedDemo` makes the demo user and client once in the life of the database.
 */
import { type Database, OperatorInputError, type Queryable } from "@platform/kernel";
import { formatAmount } from "./domain/accountObject.ts";
import {
  AccountNotFoundError,
  BrokerageInputError,
  ClientNotFoundError,
  UserAlreadyExistsError,
} from "./domain/brokerageErrors.ts";
import { randomSecret } from "./domain/secrets.ts";
import { createClientsService } from "./services/clients.ts";
import { createKeyPairsService } from "./services/keyPairs.ts";
import { createUsersService } from "./services/users.ts";
import { type AccountRow, createAccountsRepository } from "./store/accountsRepository.ts";
import { type ClientSummary, createClientsRepository } from "./store/clientsRepository.ts";
import { createKeyPairsRepository } from "./store/keyPairsRepository.ts";
import { createUsersRepository, type UserWithAccounts } from "./store/usersRepository.ts";

/** The demo data `seedDemo` creates: fixed names, so a person can follow the README. */
export const DEMO_USER_EMAIL = "demo@example.com";
export const DEMO_CLIENT_NAME = "Demo app";
export const DEMO_REDIRECT_URI = "http://127.0.0.1:8765/callback";
const DEMO_PAPER_ACCOUNTS = 2;
/** Serialises concurrent first starts (several instances on one PostgreSQL): an arbitrary constant. */
const SEED_LOCK = 7_264_500_114;

export interface OperatorCommandsParameters {
  db: Database;
  /** `brokerageStartingCash` (default "100000") is the cash of every account created. */
  config?: { brokerageStartingCash?: string };
}

type Args = Record<string, unknown>;

/** The argument checks of one command: unknown names are refused, so a typo is not silently ignored. */
function argsOf(args: Args, allowed: readonly string[]) {
  const unknown = Object.keys(args).filter((k) => !allowed.includes(k));
  if (unknown.length) throw new OperatorInputError(`unknown argument ${unknown.join(", ")}`);
  return {
    string(name: string): string {
      const value = args[name];
      if (typeof value !== "string") throw new OperatorInputError(`${name}: a string is required`);
      return value;
    },
    optionalInteger(name: string): number | undefined {
      const value = args[name];
      if (value === undefined) return undefined;
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw new OperatorInputError(`${name}: must be an integer`);
      }
      return value;
    },
    strings(name: string): string[] {
      const value = args[name];
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        throw new OperatorInputError(`${name}: a list of strings is required`);
      }
      return value;
    },
  };
}

/** Refusals an operator can act on become `OperatorInputError`; anything else stays what it is. */
async function asOperatorErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      error instanceof BrokerageInputError ||
      error instanceof UserAlreadyExistsError ||
      error instanceof ClientNotFoundError ||
      error instanceof AccountNotFoundError
    ) {
      throw new OperatorInputError(error.message, { cause: error });
    }
    throw error;
  }
}

/** An account as operators see it (JSON: dates as RFC 3339, amounts without trailing zeros). */
const accountJson = (a: AccountRow) => ({
  id: a.id,
  env: a.env,
  account_number: a.account_number,
  status: a.status,
  currency: a.currency,
  cash: formatAmount(a.cash),
  created_at: a.created_at.toISOString(),
});
const userJson = (u: UserWithAccounts) => ({
  id: u.id,
  email: u.email,
  created_at: u.created_at.toISOString(),
  accounts: u.accounts.map(accountJson),
});
const clientJson = (c: ClientSummary) => ({
  client_id: c.client_id,
  name: c.name,
  redirect_uris: c.redirect_uris,
  created_at: c.created_at.toISOString(),
  revoked_at: c.revoked_at?.toISOString() ?? null,
});

export type UserJson = ReturnType<typeof userJson>;
export type ClientJson = ReturnType<typeof clientJson>;

/** What `seedDemo` created, to print once. */
export interface SeededDemo {
  email: string;
  password: string;
  accounts: ReturnType<typeof accountJson>[];
  client_id: string;
  client_secret: string;
  redirect_uri: string;
}

const servicesOn = (db: Queryable) => {
  const accounts = createAccountsRepository(db);
  return {
    users: () => createUsersService({ users: createUsersRepository(db) }),
    clients: createClientsService({ clients: createClientsRepository(db) }),
    keyPairs: createKeyPairsService({ keyPairs: createKeyPairsRepository(db), accounts }),
  };
};

export function createOperatorCommands({ db, config }: OperatorCommandsParameters) {
  const startingCash = config?.brokerageStartingCash ?? "100000";
  const services = servicesOn(db);
  const users = services.users();

  return {
    /** `{ email, password, paperAccounts? }` → the user with its accounts. */
    createUser: (args: Args) =>
      asOperatorErrors(async () => {
        const a = argsOf(args, ["email", "password", "paperAccounts"]);
        const user = await users.create({
          email: a.string("email"),
          password: a.string("password"),
          paperAccounts: a.optionalInteger("paperAccounts"),
          startingCash,
        });
        return userJson(user);
      }),

    /** `{}` → every user with its accounts. */
    listUsers: async (args: Args) => {
      argsOf(args, []);
      return (await users.list()).map(userJson);
    },

    /**
     * `{ email, plan?, streamConnections? }` → the user's market data access: plan `basic` (the IEX feed, 30
     * symbols of trades and quotes per stream) or `plus` (every feed, no symbol limit), and how many data
     * stream connections they may hold at once (the anchor's 1; 0 shuts them out).
     */
    setMarketData: (args: Args) =>
      asOperatorErrors(async () => {
        const a = argsOf(args, ["email", "plan", "streamConnections"]);
        const plan = args.plan;
        if (plan !== undefined && plan !== "basic" && plan !== "plus") {
          throw new OperatorInputError("plan: must be basic or plus");
        }
        const streamConnections = a.optionalInteger("streamConnections");
        if (streamConnections !== undefined && (streamConnections < 0 || streamConnections > 1_000)) {
          throw new OperatorInputError("streamConnections: must be from 0 to 1000");
        }
        const email = a.string("email");
        const access = await createUsersRepository(db).setMarketDataAccess(email, { plan, streamConnections });
        if (!access) throw new OperatorInputError(`no user with email ${email}`);
        return access;
      }),

    /** `{ name, redirectUris }` → the client with its secret (shown this once). */
    createClient: (args: Args) =>
      asOperatorErrors(async () => {
        const a = argsOf(args, ["name", "redirectUris"]);
        return services.clients.create({ name: a.string("name"), redirectUris: a.strings("redirectUris") });
      }),

    /** `{}` → every client (revoked ones too), without secrets. */
    listClients: async (args: Args) => {
      argsOf(args, []);
      return (await services.clients.list()).map(clientJson);
    },

    /** `{ clientId }` → `{ client_id, revoked }`: false when it had been revoked already. */
    revokeClient: (args: Args) =>
      asOperatorErrors(async () => {
        const clientId = argsOf(args, ["clientId"]).string("clientId");
        return { client_id: clientId, revoked: await services.clients.revoke(clientId) };
      }),

    /** `{ account }` (an account id or number) → the key pair with its secret (shown this once). */
    createKeyPair: (args: Args) =>
      asOperatorErrors(async () => {
        const account = argsOf(args, ["account"]).string("account");
        return services.keyPairs.create({ accountId: account });
      }),

    /**
     * Creates the demo user (`demo@example.com`, a random password, one live and two paper accounts) and the
     * demo client ("Demo app", redirect URI `http://127.0.0.1:8765/callback`) once in the life of the
     * database, and answers what to print; undefined when they were made before (a revoked demo client is
     * not made again). Concurrent first starts are serialised by an advisory lock.
     */
    seedDemo: async (args: Args = {}): Promise<SeededDemo | undefined> => {
      argsOf(args, []);
      return db.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock($1)", [SEED_LOCK]);
        const [seeded] = await tx.query(
          `SELECT 1 FROM brokerage.users WHERE lower(email) = lower($1)
           UNION ALL SELECT 1 FROM brokerage.oauth_clients WHERE name = $2 LIMIT 1`,
          [DEMO_USER_EMAIL, DEMO_CLIENT_NAME],
        );
        if (seeded) return undefined;
        const inTx = servicesOn(tx);
        const password = randomSecret(12);
        const user = await inTx.users().create({
          email: DEMO_USER_EMAIL,
          password,
          paperAccounts: DEMO_PAPER_ACCOUNTS,
          startingCash,
        });
        const client = await inTx.clients.create({ name: DEMO_CLIENT_NAME, redirectUris: [DEMO_REDIRECT_URI] });
        return {
          email: user.email,
          password,
          accounts: user.accounts.map(accountJson),
          client_id: client.client_id,
          client_secret: client.client_secret,
          redirect_uri: DEMO_REDIRECT_URI,
        };
      });
    },
  };
}

export type OperatorCommands = ReturnType<typeof createOperatorCommands>;
