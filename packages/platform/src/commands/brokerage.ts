/**
 * `platform brokerage users|clients|keys …`: the brokerage's end users, OAuth clients and key pairs, through
 * the brokerage's operator commands (the running platform's admin socket, or the opened database). Secrets
 * (client secrets, key-pair secrets) are printed once, right after creation; only their hashes are stored.
 */
import type { Config } from "@platform/kernel";
import { runOperatorCommand } from "./operatorCommand.ts";
import { createTable } from "./table.ts";

interface AccountJson {
  id: string;
  env: "live" | "paper";
  account_number: string;
  status: string;
  currency: string;
  cash: string;
  created_at: string;
}
interface UserJson {
  id: string;
  email: string;
  created_at: string;
  accounts: AccountJson[];
}
interface CreatedClientJson {
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uris: string[];
}
interface ClientJson {
  client_id: string;
  name: string;
  redirect_uris: string[];
  created_at: string;
  revoked_at: string | null;
}
interface CreatedKeyPairJson {
  key_id: string;
  secret_key: string;
  account_id: string;
  account_number: string;
  env: "live" | "paper";
}

const brokerage = <T>(config: Config, command: string, args: Record<string, unknown> = {}) =>
  runOperatorCommand(config, "brokerage", command, args) as Promise<T>;

const print = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};
const printJson = (value: unknown) => print(JSON.stringify(value));

/** Reads the password from standard input when it is given as `-` (it then stays out of the process list). */
async function passwordFrom(option: string): Promise<string> {
  if (option !== "-") return option;
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  return input.replace(/\r?\n$/, "");
}

function accountsTable(accounts: readonly AccountJson[]) {
  const table = createTable(["env", "account number", "account id", "cash", "status"]);
  for (const a of accounts) table.push([a.env, a.account_number, a.id, `${a.cash} ${a.currency}`, a.status]);
  return table.toString();
}

export async function createBrokerageUser(
  config: Config,
  o: { email: string; password: string; paperAccounts?: number; json?: boolean },
) {
  const user = await brokerage<UserJson>(config, "createUser", {
    email: o.email,
    password: await passwordFrom(o.password),
    ...(o.paperAccounts === undefined ? {} : { paperAccounts: o.paperAccounts }),
  });
  if (o.json) return printJson(user);
  print(`Created user ${user.email} (id ${user.id}) with these accounts:\n${accountsTable(user.accounts)}`);
}

interface MarketDataAccessJson {
  user_id: string;
  email: string;
  data_plan: string;
  data_stream_connections: number;
}

/** `platform brokerage users market-data`: a user's market data plan and stream connection limit. */
export async function setBrokerageMarketData(
  config: Config,
  o: { email: string; plan?: string; streamConnections?: number; json?: boolean },
) {
  const access = await brokerage<MarketDataAccessJson>(config, "setMarketData", {
    email: o.email,
    ...(o.plan === undefined ? {} : { plan: o.plan }),
    ...(o.streamConnections === undefined ? {} : { streamConnections: o.streamConnections }),
  });
  if (o.json) return printJson(access);
  print(
    `${access.email}: market data plan ${access.data_plan}, ${access.data_stream_connections} stream connection(s) at once`,
  );
}

export async function listBrokerageUsers(config: Config, o: { json?: boolean }) {
  const users = await brokerage<UserJson[]>(config, "listUsers");
  if (o.json) return printJson(users);
  if (!users.length) return print("No brokerage users yet: `platform brokerage users create --email … --password …`.");
  const table = createTable(["email", "user id", "live account", "paper accounts", "created"]);
  for (const u of users) {
    table.push([
      u.email,
      u.id,
      u.accounts.find((a) => a.env === "live")?.account_number ?? "",
      u.accounts
        .filter((a) => a.env === "paper")
        .map((a) => a.account_number)
        .join("\n"),
      u.created_at,
    ]);
  }
  print(table.toString());
}

export async function createBrokerageClient(
  config: Config,
  o: { name: string; redirectUri: string[]; json?: boolean },
) {
  const client = await brokerage<CreatedClientJson>(config, "createClient", {
    name: o.name,
    redirectUris: o.redirectUri,
  });
  if (o.json) return printJson(client);
  print(
    `Created OAuth client "${client.name}". Store the secret now: it is shown only once.\n\n` +
      `  client_id      ${client.client_id}\n` +
      `  client_secret  ${client.client_secret}\n` +
      client.redirect_uris.map((uri) => `  redirect_uri   ${uri}\n`).join(""),
  );
}

export async function listBrokerageClients(config: Config, o: { json?: boolean }) {
  const clients = await brokerage<ClientJson[]>(config, "listClients");
  if (o.json) return printJson(clients);
  if (!clients.length)
    return print("No OAuth clients yet: `platform brokerage clients create --name … --redirect-uri …`.");
  const table = createTable(["client_id", "name", "redirect URIs", "created", "status"]);
  for (const c of clients) {
    table.push([c.client_id, c.name, c.redirect_uris.join("\n"), c.created_at, c.revoked_at ? "revoked" : "active"]);
  }
  print(table.toString());
}

export async function revokeBrokerageClient(config: Config, clientId: string) {
  const { revoked } = await brokerage<{ revoked: boolean }>(config, "revokeClient", { clientId });
  print(
    revoked
      ? `Revoked OAuth client ${clientId} and every access token issued to it.`
      : `OAuth client ${clientId} was revoked already.`,
  );
}

export async function createBrokerageKeyPair(config: Config, o: { account: string; json?: boolean }) {
  const pair = await brokerage<CreatedKeyPairJson>(config, "createKeyPair", { account: o.account });
  if (o.json) return printJson(pair);
  print(
    `Created a key pair for ${pair.env} account ${pair.account_number}. Store the secret now: it is shown only once.\n\n` +
      `  APCA-API-KEY-ID      ${pair.key_id}\n` +
      `  APCA-API-SECRET-KEY  ${pair.secret_key}\n`,
  );
}
