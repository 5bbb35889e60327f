/**
 * Live answers against the Across API's own OpenAPI document: every operation we implement that the document
 * declares (deposit status, deposits, suggested fees, limits, available routes, swap approval GET and POST,
 * swap sources, chains and tokens) is called over HTTP on a two-chain devnet, on real deposits that our
 * relayer fills, and each answer is validated with ajv against the document's response schema for its
 * status. Every check is counted; one mismatch fails the test.
 *
 * The document is `docs/api-docs-openapi.yaml` of across-protocol/frontend (bdcf46ce, 2026-02-06), read
 * from the anchors' documents beside the clone (kernel's `readAnchorDocument`; not shipped with the project);
 * its `x-gitbook-*` rendering keys are left out. Where the document contradicts the anchor's own answers, the schema is
 * adapted here, in the test only, each with its source (ANCHOR_CORRECTIONS); where it gives only an example
 * (no schema), the schema is the example's shape (`exampleShape`).
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestToken } from "@platform/chains";
import type { BackgroundJob } from "@platform/kernel";
import { readAnchorDocument } from "@platform/kernel/testing";
import AjvModule, { type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { type Address, type Hex, parseEventLogs, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QuoteTestService, startQuoteTestService } from "../quotes/testing.ts";
import { waitFor } from "../relayer/testSupport.ts";
import { makeDeposit, spokeAbi } from "../testing/spokePoolActions.ts";

// Both packages are CommonJS with a default export (as kernel's http/validators.ts imports them).
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON (the document and the answers), checked by ajv
type Json = any;

const A = 8453;
const B = 10;
const DOC_ID = "across-openapi.json";
const document: Json = withoutGitbookKeys(readAnchorDocument("across-openapi.yaml"));

/** The document without the keys its docs site renders from (`x-gitbook-*`), which are no schema keywords. */
function withoutGitbookKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutGitbookKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith("x-gitbook"))
      .map(([key, v]) => [key, withoutGitbookKeys(v)]),
  );
}

/** A JSON pointer into the document to a response schema, as ajv resolves it. */
const responsePointer = (path: string, method: string, status: string) =>
  `${DOC_ID}#/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}/responses/${status}/content/application~1json/schema`;

const schemaAt = (doc: Json, path: string, method: string, status: string) =>
  doc.paths[path][method].responses[status].content["application/json"];

/** The JSON type of an example value, as a schema. */
function exampleShape(value: Json): Json {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) return { type: "array", items: value.length ? exampleShape(value[0]) : {} };
  if (typeof value === "object") {
    return {
      type: "object",
      required: Object.keys(value),
      properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exampleShape(v)])),
    };
  }
  return { type: typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value };
}

/**
 * Where the document is wrong against the anchor's real answers (sources: the shared reference
 * `reference/across.md` §§1.2–1.9, which cites the anchor's code, and the document's own examples). Applied to
 * a copy of the document, never to our answers.
 */
function ANCHOR_CORRECTIONS(doc: Json) {
  const nullable = (schema: Json) => {
    schema.nullable = true;
  };

  // GET /deposit/status: the indexer's DTO returns depositId as a string (the document's own example:
  // "4406025"), transaction references as hashes (strings), depositRefundTxnRef and actionsSucceeded null when
  // there is none (the example: null), and fillTxnRef null until filled (§1.8).
  const status = schemaAt(doc, "/deposit/status", "get", "200").schema.properties;
  status.depositId = { type: "string" };
  status.depositTxnRef = { type: "string" };
  status.depositRefundTxnRef = { type: "string", nullable: true };
  nullable(status.actionsSucceeded);
  nullable(status.fillTxnRef);

  // GET /deposits: a bare array of records (§1.9; the document's own example is an array, its schema one
  // object); actionsSucceeded is boolean or null (the example: null; §1.9), speedups are objects
  // ({transactionHash, updatedRecipient, updatedMessage, blockNumber, updatedOutputAmount}, §1.9), and
  // status is the raw RelayStatus ("unfilled", not "pending", §1.9).
  const deposits = schemaAt(doc, "/deposits", "get", "200");
  const record = deposits.schema;
  record.properties.actionsSucceeded = { type: "boolean", nullable: true };
  record.properties.speedups = {
    type: "array",
    items: {
      type: "object",
      required: ["transactionHash", "updatedRecipient", "updatedMessage", "blockNumber", "updatedOutputAmount"],
    },
  };
  record.properties.status.enum.push("unfilled");
  // The anchor's filled records carry every field as a string (its example); an unfilled one carries null
  // where nothing happened yet (the indexer's getDeposits; the frontend's IndexerDeposit type): validated
  // against a second variant with those fields nullable.
  const unfilled = structuredClone(record);
  for (const field of [
    "bridgeFeeUsd",
    "inputPriceUsd",
    "outputPriceUsd",
    "fillGasFee",
    "fillGasFeeUsd",
    "fillGasTokenPriceUsd",
    "relayer",
    "fillBlockTimestamp",
    "fillTxnRef",
    "fillTx",
  ]) {
    nullable(unfilled.properties[field]);
  }
  deposits.schema = { type: "array", items: record };
  doc.components.schemas.UnfilledDepositsRecord = unfilled;

  // POST /swap/approval: crossSwapType in camelCase, as GET's (one handler answers both, api/swap/approval;
  // §1.5 lists bridgeableToBridgeable|…|anyToAny); the document's POST enum is upper snake case while its own
  // POST example says "bridgeableToAny".
  const approval = (method: string) => schemaAt(doc, "/swap/approval", method, "200").schema.properties;
  approval("post").crossSwapType.enum = [...approval("get").crossSwapType.enum];

  // AvailableRoute: chain ids are numbers (the document's own /available-routes example; the app-sdk's zod
  // schema, §1.4), not strings.
  const route = doc.components.schemas.AvailableRoute.properties;
  route.originChainId = { type: "integer" };
  route.destinationChainId = { type: "integer" };

  // SuggestedFees: exclusivityDeadline is a number (§1.2: "exclusivityDeadline is a number"; the app-sdk
  // passes it on as exclusivityParameter).
  doc.components.schemas.SuggestedFees.properties.exclusivityDeadline = { type: "integer" };

  // /swap/tokens: priceUsd is null for a token without a price (the frontend's api/swap/tokens Token type:
  // `priceUsd: string | null`); the document shows only priced tokens.
  const tokens = schemaAt(doc, "/swap/tokens", "get", "200");
  tokens.schema = exampleShape(tokens.example);
  tokens.schema.items.properties.priceUsd = { type: "string", nullable: true };
  // The other example-only answers: their example's shape. /swap/sources' example ends with "…" (a string).
  for (const path of ["/swap/chains", "/swap/sources"]) {
    const content = schemaAt(doc, path, "get", "200");
    content.schema = exampleShape(content.example);
  }
  const routes = schemaAt(doc, "/available-routes", "get", "200");
  routes.schema = { type: "array", items: { $ref: "#/components/schemas/AvailableRoute" } };
}

const corrected = structuredClone(document);
ANCHOR_CORRECTIONS(corrected);
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(corrected, DOC_ID);
const validators = new Map<string, ValidateFunction>();
const validatorFor = (ref: string): ValidateFunction => {
  const known = validators.get(ref);
  if (known) return known;
  const compiled = ajv.compile({ $ref: ref });
  validators.set(ref, compiled);
  return compiled;
};

/** Every validation made, and the ones that failed (with ajv's errors). */
const checks: { name: string; ok: boolean; errors?: string }[] = [];

/** Validates `body` with the schema at `ref`, records the check, and asserts it. */
function check(name: string, ref: string, body: Json) {
  const validate = validatorFor(ref);
  const ok = validate(body) === true;
  const errors = ok ? undefined : ajv.errorsText(validate.errors, { separator: "\n" });
  checks.push({ name, ok, errors });
  expect(ok, `${name} against ${ref}:\n${errors}\n${JSON.stringify(body).slice(0, 2000)}`).toBe(true);
}

/** Calls the operation and checks its answer against the document's schema for the answer's status. */
async function checked(
  name: string,
  method: "get" | "post",
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  expectedStatus: number,
  body?: unknown,
) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const res = await fetch(`${t.service.url}/api${path}?${params}`, {
    method: method.toUpperCase(),
    headers: {
      authorization: `Bearer ${t.service.apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  expect(res.status, `${name}: ${JSON.stringify(answer)}`).toBe(expectedStatus);
  const responses = corrected.paths[path][method].responses;
  const status = responses[String(res.status)] ? String(res.status) : `${String(res.status)[0]}XX`;
  expect(responses[status]?.content?.["application/json"]?.schema, `${path} declares a ${status} schema`).toBeDefined();
  check(name, responsePointer(path, method, status), answer);
  return answer;
}

let t: QuoteTestService;
let jobs: BackgroundJob;

beforeAll(async () => {
  // USDC and WETH are the bridgeable tokens (as on most real routes); USDT and DAI reach the bridge by swaps.
  const routesFile = join(tmpdir(), `openapi-routes-${process.pid}.json`);
  const routes = [A, B].flatMap((from) =>
    ["USDC", "WETH"].map((originToken) => ({
      originChainId: from,
      destinationChainId: from === A ? B : A,
      originToken,
    })),
  );
  writeFileSync(routesFile, JSON.stringify({ routes }));
  t = await startQuoteTestService({ chainIds: [A, B], routesFile, config: { crosschainPollMs: 100 } });
  jobs = await t.service.instance.startJobs();
});

afterAll(async () => {
  await jobs?.stop();
  await t?.close();
  const failed = checks.filter((c) => !c.ok);
  console.log(`Across OpenAPI document: ${checks.length - failed.length} of ${checks.length} checks hold`);
  for (const f of failed) console.log(`  ✗ ${f.name}: ${f.errors}`);
});

const token = (chainId: number, symbol: string) => manifestToken(t.devnet.chain(chainId), symbol).address;
const user = (i: number) => t.devnet.accounts.users[i] as { address: Address; privateKey: Hex };

/** Sends a swap quote's approvals and transaction as `from`; the deposit's id. */
async function execute(quote: Json, from: { privateKey: Hex }): Promise<bigint> {
  const chainId = quote.swapTx.chainId as number;
  const wallet = t.devnet.walletClient(chainId, {
    ...from,
    address: privateKeyToAccount(from.privateKey).address,
  } as never);
  const client = t.devnet.publicClient(chainId);
  for (const approval of quote.approvalTxns ?? []) {
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: approval.to, data: approval.data }),
    });
  }
  const receipt = await client.waitForTransactionReceipt({
    hash: await wallet.sendTransaction({
      to: quote.swapTx.to,
      data: quote.swapTx.data,
      value: BigInt(quote.swapTx.value),
      // Not simulated when the approval was still to be sent: a limit that covers any of these swaps.
      gas: quote.swapTx.simulationSuccess ? BigInt(quote.swapTx.gas) : 1_500_000n,
    }),
  });
  expect(receipt.status).toBe("success");
  const [deposit] = parseEventLogs({
    abi: spokeAbi as never,
    logs: receipt.logs,
    eventName: "FundsDeposited" as never,
  });
  return (deposit as unknown as { args: { depositId: bigint } }).args.depositId;
}

const filled = (depositId: bigint) =>
  waitFor(
    "the fill",
    async () => {
      const { body } = await t.get("/deposit/status", { originChainId: A, depositId: String(depositId) });
      return body.status === "filled" ? body : undefined;
    },
    20_000,
  );

const swapQuery = (over: Record<string, string | number | boolean>) => ({
  originChainId: A,
  destinationChainId: B,
  depositor: user(0).address,
  ...over,
});

describe("live answers hold the Across API's own OpenAPI document", () => {
  it("quotes, limits, routes, sources, chains and tokens", async () => {
    const usdc = {
      inputToken: token(A, "USDC"),
      outputToken: token(B, "USDC"),
      originChainId: A,
      destinationChainId: B,
    };
    await checked(
      "suggested-fees USDC",
      "get",
      "/suggested-fees",
      { ...usdc, amount: parseUnits("100", 6).toString() },
      200,
    );
    await checked(
      "suggested-fees WETH",
      "get",
      "/suggested-fees",
      {
        inputToken: token(A, "WETH"),
        outputToken: token(B, "WETH"),
        originChainId: A,
        destinationChainId: B,
        amount: parseUnits("0.1", 18).toString(),
      },
      200,
    );
    await checked("suggested-fees too low", "get", "/suggested-fees", { ...usdc, amount: "1" }, 400);
    await checked("limits USDC", "get", "/limits", usdc, 200);
    await checked("limits with amount", "get", "/limits", { ...usdc, amount: parseUnits("5", 6).toString() }, 200);
    await checked("limits without outputToken", "get", "/limits", { ...usdc, outputToken: undefined }, 400);
    await checked("available-routes", "get", "/available-routes", {}, 200);
    await checked(
      "available-routes filtered",
      "get",
      "/available-routes",
      { originChainId: A, destinationChainId: B },
      200,
    );
    await checked("swap/sources", "get", "/swap/sources", {}, 200);
    await checked("swap/sources of a chain", "get", "/swap/sources", { chainId: A }, 200);
    await checked("swap/sources bad chain", "get", "/swap/sources", { chainId: 5 }, 400);
    await checked("swap/chains", "get", "/swap/chains", {}, 200);
    await checked("swap/tokens", "get", "/swap/tokens", {}, 200);
    await checked("swap/tokens of a chain", "get", "/swap/tokens", { chainId: B }, 200);
    await checked("swap/tokens bad chain", "get", "/swap/tokens", { chainId: "x" }, 400);
  });

  it("swap approvals (GET and POST), executed; the deposits they make, filled, in /deposit/status and /deposits", async () => {
    // anyToBridgeable: an origin swap (USDT → USDC) bridged.
    const originSwap = await checked(
      "swap/approval anyToBridgeable",
      "get",
      "/swap/approval",
      swapQuery({
        amount: parseUnits("20", 6).toString(),
        inputToken: token(A, "USDT"),
        outputToken: token(B, "USDC"),
      }),
      200,
    );
    expect(originSwap.crossSwapType).toBe("anyToBridgeable");
    // bridgeableToBridgeable, minOutput.
    const bridge = await checked(
      "swap/approval bridgeableToBridgeable minOutput",
      "get",
      "/swap/approval",
      swapQuery({
        amount: parseUnits("15", 6).toString(),
        tradeType: "minOutput",
        inputToken: token(A, "USDC"),
        outputToken: token(B, "USDC"),
      }),
      200,
    );
    // POST with an embedded action after a destination swap (bridgeableToAny): all DAI to a vault.
    const dai = token(B, "DAI");
    const vault = "0x00000000000000000000000000000000000ba017";
    const withActions = await checked(
      "swap/approval POST with actions",
      "post",
      "/swap/approval",
      swapQuery({ amount: parseUnits("10", 6).toString(), inputToken: token(A, "USDC"), outputToken: dai }),
      200,
      {
        actions: [
          {
            target: dai,
            functionSignature: "function transfer(address to, uint256 value)",
            args: [
              { value: vault, populateDynamically: false, balanceSourceToken: null },
              { value: "0", populateDynamically: true, balanceSourceToken: dai },
            ],
            value: "0",
            isNativeTransfer: false,
          },
        ],
      },
    );
    await checked(
      "swap/approval same chain",
      "get",
      "/swap/approval",
      swapQuery({
        amount: "1000000",
        inputToken: token(A, "USDC"),
        outputToken: token(B, "USDC"),
        destinationChainId: A,
      }),
      400,
    );
    await checked(
      "swap/approval POST bad action",
      "post",
      "/swap/approval",
      swapQuery({ amount: "1000000", inputToken: token(A, "USDC"), outputToken: token(B, "USDC") }),
      400,
      { actions: [{ target: dai, functionSignature: "function transfer(address,uint256)", args: [{ value: "x" }] }] },
    );

    const ids = [];
    for (const quote of [originSwap, bridge, withActions]) ids.push(await execute(quote, user(0)));
    // One deposit nobody fills: its output is worth more than its input (unprofitable for our relayer).
    const unfilled = await makeDeposit(t.devnet, {
      origin: A,
      destination: B,
      inputAmount: parseUnits("1", 6),
      outputAmount: parseUnits("2", 6),
      user: 1,
    });
    for (const id of ids) {
      await filled(id);
      const status = await checked(
        `deposit/status filled ${id}`,
        "get",
        "/deposit/status",
        { originChainId: A, depositId: String(id) },
        200,
      );
      expect(status.status).toBe("filled");
    }
    await waitFor(
      "the unfilled deposit indexed",
      async () => (await t.get("/deposit/status", { depositTxnRef: unfilled.txHash })).status === 200 || undefined,
      10_000,
    );
    const pending = await checked(
      "deposit/status pending",
      "get",
      "/deposit/status",
      { depositTxnRef: unfilled.txHash },
      200,
    );
    expect(pending.status).toBe("pending");

    // /deposits once every fill's costs are recorded: filled records against the document's (strict) record.
    await waitFor(
      "the fills' costs",
      async () => {
        const { body } = await t.get("/deposits", { status: "filled" });
        return body.length === ids.length && body.every((d: Json) => d.fillGasFee !== null) ? body : undefined;
      },
      20_000,
    );
    const filledRecords = await checked("deposits filled", "get", "/deposits", { status: "filled" }, 200);
    expect(filledRecords).toHaveLength(ids.length);
    const all = await checked("deposits of the depositor", "get", "/deposits", { depositor: user(0).address }, 200);
    expect(all.length).toBeGreaterThanOrEqual(ids.length);
    const unfilledRecords = await (await t.get("/deposits", { status: "unfilled" })).body;
    expect(unfilledRecords).toHaveLength(1);
    check("deposits unfilled", `${DOC_ID}#/components/schemas/UnfilledDepositsRecord`, unfilledRecords[0]);
    // The document gives these operations' errors as examples of its AcrossApiError object only.
    const badLimit = await t.get("/deposits", { limit: 1001 });
    expect(badLimit.status).toBe(400);
    check("deposits bad limit", `${DOC_ID}#/components/schemas/AcrossApiError`, badLimit.body);
    const missing = await t.get("/deposit/status", { originChainId: A, depositId: "999999" });
    expect(missing.status).toBe(404);
    check("deposit/status not found", `${DOC_ID}#/components/schemas/AcrossApiError`, missing.body);
  });
});
