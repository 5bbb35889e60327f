/**
 * Clients generated from our own documents work: one real `platform start` (devnet chains 1337 and 10), each
 * host's served `/openapi.json` turned into TypeScript types by `openapi-typescript`, the flows of
 * `support/generated-flows/` type-checked against those types (a document change that breaks a typed client
 * fails here), then run with `openapi-fetch` clients; every answer they receive is checked against the served
 * document (status declared for the operation, body valid by its schema).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DevnetManifest } from "@platform/chains";
import { manifestChain, manifestToken } from "@platform/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGpxFile } from "../packages/wearables/src/testing/gpxFile.ts";
import { makeWorkoutFixture } from "../packages/wearables/src/testing/workoutFixture.ts";
import type {
  BrokerageFlowContext,
  ChainstatsFlowContext,
  CrosschainFlowContext,
  WearablesFlowContext,
} from "./support/generated-flows/flowContext.ts";
import { answerCheckMiddleware, FLOWS_DIR, generateTypes, typecheckFlows } from "./support/generatedClients.ts";
import { demoUser, depositUsdcByHand } from "./support/manualDeposit.ts";
import type { OpenApiDocument } from "./support/openapiResponses.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

const CHAINS = [1337, 10];
let platform: PlatformProcess;
let env: Record<string, string>;
let removeEnv: () => Promise<void>;
let typesDir: string;
/** Origin of each host by document name (`wearables`, `brokerage-paper`, …). */
const origins: Record<string, string> = {};
const documents: Record<string, OpenApiDocument> = {};

/** The origin the banner printed for a host of the brokerage (`brokerage paper`, …). */
function brokerageOrigin(host: string): string {
  const match = new RegExp(`│\\s*brokerage ${host}\\s*│\\s*(http://[^\\s│]+)`).exec(platform.output());
  if (!match) throw new Error(`no brokerage ${host} host in:\n${platform.output()}`);
  return new URL(match[1] as string).origin;
}

beforeAll(async () => {
  const made = await createPlatformEnv("generated-clients", {
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET_CHAINS: CHAINS.join(","),
    DEVNET_BLOCK_TIME: "0",
    CHAINSTATS_POLL_MS: "100",
    LOG_LEVEL: "warn",
  });
  ({ env, remove: removeEnv } = made);
  platform = await startPlatformProcess(env, 120_000);
  for (const name of ["wearables", "crosschain", "chainstats"]) {
    origins[name] = new URL(platform.baseUrls[name] as string).origin;
  }
  for (const host of ["paper", "data"]) origins[`brokerage-${host}`] = brokerageOrigin(host);
  for (const [name, origin] of Object.entries(origins)) {
    documents[name] = (await (await fetch(`${origin}/openapi.json`)).json()) as OpenApiDocument;
  }
  typesDir = mkdtempSync(join(tmpdir(), "generated-clients-"));
  await generateTypes(documents, typesDir);
}, 240_000);

afterAll(async () => {
  if (platform?.child.exitCode === null) await platform.stop();
  await removeEnv?.();
  if (typesDir) rmSync(typesDir, { recursive: true, force: true });
});

/** Runs a flow of `generated-flows/` with its context; fails on any answer the document does not describe. */
async function runFlow<C>(flow: string, context: (checkAnswers: (host?: string) => unknown) => C): Promise<void> {
  const problems: string[] = [];
  const checkAnswers = (document: string) => answerCheckMiddleware(documents[document] as OpenApiDocument, problems);
  // A path the compiler does not follow: the flows import types that exist only once generated.
  const module = (await import(join(FLOWS_DIR, `${flow}.ts`))) as { run(context: C): Promise<void> };
  await module.run(context((host) => checkAnswers(host ? `${flow}-${host}` : flow)));
  expect(problems, "answers the served document does not describe").toEqual([]);
}

describe("clients generated from the served documents", () => {
  it("type-check: the flows compile against the freshly generated types", () => {
    const diagnostics = typecheckFlows(["wearables.ts", "crosschain.ts", "brokerage.ts", "chainstats.ts"], typesDir);
    expect(diagnostics).toEqual([]);
  }, 120_000);

  it("wearables: users, a GPX import, its job, timeseries and workouts", async () => {
    const workout = makeWorkoutFixture();
    const points = workout.points;
    const gpx = {
      text: writeGpxFile(workout),
      start: new Date(points[0]?.at as number),
      end: new Date((points.at(-1)?.at as number) + 1000),
    };
    await runFlow<WearablesFlowContext>("wearables", (checkAnswers) => ({
      origin: origins.wearables as string,
      apiKey: platform.demoKeys.wearables as string,
      gpx,
      checkAnswers: checkAnswers as WearablesFlowContext["checkAnswers"],
    }));
  });

  it("crosschain: routes, chains, fees and the status of a deposit made with viem", async () => {
    const manifest = JSON.parse(readFileSync(join(env.DATA_DIR as string, "devnet.json"), "utf8")) as DevnetManifest;
    await runFlow<CrosschainFlowContext>("crosschain", (checkAnswers) => ({
      origin: origins.crosschain as string,
      apiKey: platform.demoKeys.crosschain as string,
      route: {
        originChainId: 1337,
        destinationChainId: 10,
        inputToken: manifestToken(manifestChain(manifest, 1337), "USDC").address,
        outputToken: manifestToken(manifestChain(manifest, 10), "USDC").address,
      },
      depositor: demoUser(manifest).address,
      deposit: async ({ inputAmount, outputAmount }) => {
        const amounts = { amount: BigInt(inputAmount), outputAmount: BigInt(outputAmount) };
        const receipt = await depositUsdcByHand(manifest, { origin: 1337, destination: 10, ...amounts });
        return receipt.transactionHash;
      },
      checkAnswers: checkAnswers as CrosschainFlowContext["checkAnswers"],
    }));
  }, 90_000);

  it("brokerage: a paper account's key pair trades, and reads market data", async () => {
    const created = await runPlatform(
      ["brokerage", "users", "create", "--email", "generated@example.com", "--password", "long enough", "--json"],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout) as { accounts: { id: string; env: string }[] };
    const paper = user.accounts.find((a) => a.env === "paper")?.id as string;
    const keys = await runPlatform(["brokerage", "keys", "create", "--account", paper, "--json"], env);
    expect(keys.code, keys.stderr).toBe(0);
    const { key_id: keyId, secret_key: secretKey } = JSON.parse(keys.stdout) as { key_id: string; secret_key: string };
    await runFlow<BrokerageFlowContext>("brokerage", (checkAnswers) => ({
      origin: origins["brokerage-paper"] as string,
      paperOrigin: origins["brokerage-paper"] as string,
      dataOrigin: origins["brokerage-data"] as string,
      keyId,
      secretKey,
      checkAnswers: checkAnswers as BrokerageFlowContext["checkAnswers"],
    }));
  }, 60_000);

  it("chainstats: the chain list and daily statistics of an indexed devnet chain", async () => {
    await runFlow<ChainstatsFlowContext>("chainstats", (checkAnswers) => ({
      origin: origins.chainstats as string,
      apiKey: platform.demoKeys.chainstats as string,
      chainId: 1337,
      checkAnswers: checkAnswers as ChainstatsFlowContext["checkAnswers"],
    }));
  });
});
