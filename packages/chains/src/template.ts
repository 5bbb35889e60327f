import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { createLogger, type Logger } from "@platform/kernel";
import type { Address, Hex } from "viem";
import { devnetAccounts } from "./accounts.ts";
import { startAnvil } from "./anvil.ts";
import { artifactsDigest } from "./artifacts.ts";
import { executeTxs, httpRpc, planDeployment, plannedV3Pools } from "./deploy.ts";

/**
 * The deployment runs once on a scratch anvil (the "template chain"); its account state (code, storage,
 * balances, nonces, without blocks) is saved and loaded as the starting state of every devnet chain.
 * That is valid because nothing in the template depends on the chain id: the SpokePool reads
 * `block.chainid` at run time and the EIP-712 contracts (Permit2, periphery, counterfactual) rebuild their
 * domain separator when the chain id differs from the one cached at construction. The Uniswap pairs do
 * bake the chain id into storage, so V2 pools are created per chain (see `planPoolSeeding`); Uniswap V3 pools
 * and positions do not, so they are part of the template.
 */
const TEMPLATE_CHAIN_ID = 31337;

const require = createRequire(import.meta.url);

/** Cache key: changes with any deployed bytecode, the deployment code, or the anvil version. */
function templateKey(): string {
  const h = createHash("sha256");
  h.update(artifactsDigest());
  // The sources, or their JavaScript build (packages/platform/build/compile.mjs) when the platform runs that.
  for (const name of ["deploy", "template", "accounts", "uniswapV3"]) {
    const code = [`./${name}.ts`, `./${name}.js`].map((file) => {
      try {
        return readFileSync(fileURLToPath(new URL(file, import.meta.url)));
      } catch {
        return undefined;
      }
    });
    h.update(code.find((c) => c !== undefined) ?? name);
  }
  try {
    const anvilDir = dirname(require.resolve("@foundry-rs/anvil/package.json"));
    h.update(readFileSync(join(anvilDir, "package.json")));
  } catch {
    h.update("anvil");
  }
  return h.digest("hex").slice(0, 20);
}

/** Path of the cached template for the current code, under `cacheDir` (default: the OS temp dir). */
function templatePath(cacheDir = tmpdir()): string {
  return join(cacheDir, `platform-devnet-template-${templateKey()}.json`);
}

interface AnvilDump {
  block?: unknown;
  accounts: Record<Address, { nonce: number; balance: Hex; code: Hex; storage: Record<Hex, Hex> }>;
  best_block_number?: unknown;
  blocks?: unknown[];
  transactions?: unknown[];
  historical_states?: unknown;
}

/**
 * Returns the path of the template state file, deploying on a scratch anvil when no cached one exists.
 * Concurrent builders (parallel test workers) are safe: each writes a temp file and renames it in place.
 */
export async function ensureTemplate(
  opts: { cacheDir?: string; logger?: Logger; useCache?: boolean } = {},
): Promise<{ path: string; cached: boolean }> {
  const logger = opts.logger ?? createLogger({ level: "silent" });
  const path = templatePath(opts.cacheDir);
  if (opts.useCache !== false && existsSync(path)) return { path, cached: true };

  const started = Date.now();
  const accounts = devnetAccounts();
  const plan = planDeployment(accounts);
  // Automine, no interval blocks, no pruning needed: this node lives for a second.
  const node = await startAnvil({ chainId: TEMPLATE_CHAIN_ID, port: 0, pruneHistory: false, logger });
  try {
    const rpc = httpRpc(node.rpcUrl);
    await executeTxs(rpc, TEMPLATE_CHAIN_ID, plan.templateTxs);
    const v3Pools = plannedV3Pools(plan).map((p): [string, Address] => [`Uniswap V3 pool ${p.name}`, p.pool]);
    for (const [name, address] of [...Object.entries(plan.contracts), ...v3Pools]) {
      const code = await rpc<Hex>("eth_getCode", [address, "latest"]);
      if (code === "0x") throw new Error(`template deployment: no code at ${name} (${address})`);
    }
    const dumpHex = await rpc<Hex>("anvil_dumpState");
    const dump = JSON.parse(gunzipSync(Buffer.from(dumpHex.slice(2), "hex")).toString("utf8")) as AnvilDump;
    // Keep only account state: each chain then starts from its own genesis block (own genesis hash,
    // own timestamp) and no transaction signed for the template chain id appears in its history.
    // anvil requires the block/best_block_number/blocks/transactions fields; the block environment is
    // reset to genesis values (anvil stamps the new genesis with the current time regardless).
    const template: AnvilDump = {
      block: { ...(dump.block as object), number: "0x0" },
      accounts: dump.accounts,
      best_block_number: 0,
      blocks: [],
      transactions: [],
    };
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(template));
    renameSync(tmp, path);
    logger.info(
      { txs: plan.templateTxs.length, ms: Date.now() - started, path },
      "devnet template deployed (contracts, tokens, balances)",
    );
    return { path, cached: false };
  } finally {
    await node.stop();
  }
}
