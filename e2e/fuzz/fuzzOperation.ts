/**
 * Fuzzes one operation: `runs` cases from `fuzzCase`, each sent and checked by `checkAnswer`. fast-check
 * shrinks a failing case; the report names the seed and path that replay it (`FUZZ_SEED`, `FUZZ_PATH`) and
 * the shrunk request.
 */
import fc from "fast-check";
import { type FuzzCase, type FuzzContext, fuzzCase, type HttpRequest, toHttpRequest } from "./fuzzCase.ts";
import { type Operation, operationName } from "./openapiOperations.ts";
import { type CheckOptions, checkAnswer, compileResponseSchemas } from "./responseCheck.ts";
import { sendRequest } from "./sendRequest.ts";

export interface OperationReport {
  operation: string;
  cases: number;
  /** The slowest answer: its time and request. */
  slowest: { ms: number; request: string };
  /** Answers by status. */
  statuses: Record<number, number>;
  /** Undocumented statuses seen (when not strict), with one request that got each. */
  undocumented: Record<number, string>;
  failure?: string;
}

export interface FuzzOptions extends CheckOptions {
  runs: number;
  seed: number;
  /** fast-check's replay path of one failure (`FUZZ_PATH`): runs that case and its shrinks only. */
  path?: string;
  /** A request not answered within this is aborted (and fails as a hang). */
  timeoutMs: number;
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/** The request as a reader replays it by hand: method, URL, headers, body (long values clipped). */
export function describeRequest(origin: string, req: HttpRequest): string {
  const headers = Object.entries(req.headers).map(([k, v]) => `  ${k}: ${clip(JSON.stringify(v), 120)}`);
  const body = req.body ? `\n  body: ${clip(JSON.stringify(req.body.toString("utf8")))}` : "";
  return `${req.method} ${clip(`${origin}${req.target}`, 600)}\n${headers.join("\n")}${body}`;
}

/** An operation ready to fuzz: its case arbitrary built and its response schemas compiled. */
export interface PreparedOperation {
  op: Operation;
  context: FuzzContext;
  cases: fc.Arbitrary<FuzzCase>;
}

/**
 * Builds what a run of `op` needs before any request is sent: this process's CPU time (samples, schema
 * compilation) must not land between a request and the timing of its answer.
 */
export function prepareOperation(op: Operation, context: FuzzContext): PreparedOperation {
  compileResponseSchemas(op);
  return { op, context, cases: fuzzCase(op, context) };
}

export async function fuzzOperation(
  { op, context, cases }: PreparedOperation,
  options: FuzzOptions,
): Promise<OperationReport> {
  const report: OperationReport = {
    operation: operationName(op),
    cases: 0,
    slowest: { ms: 0, request: "" },
    statuses: {},
    undocumented: {},
  };
  let lastRequest = "";
  const property = fc.asyncProperty(cases, async (fuzz: FuzzCase) => {
    const req = toHttpRequest(op, fuzz, context);
    lastRequest = describeRequest(op.origin, req);
    report.cases += 1;
    const answer = await sendRequest(op.origin, req, options.timeoutMs).catch((error: Error) => {
      throw new Error(`no answer: ${error.message}`);
    });
    if (answer.ms > report.slowest.ms)
      report.slowest = { ms: answer.ms, request: lastRequest.split("\n")[0] as string };
    report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
    const result = checkAnswer(op, answer, options);
    if (result.undocumentedStatus !== undefined) report.undocumented[result.undocumentedStatus] ??= lastRequest;
    if (result.problems.length > 0) {
      throw new Error(`${result.problems.join("\n")}\nanswer ${answer.status}: ${clip(answer.body)}`);
    }
  });
  const details = await fc.check(property, {
    numRuns: options.runs,
    seed: options.seed,
    path: options.path,
    // Shrinking re-sends requests: bounded, so one slow failure cannot eat CI's budget.
    interruptAfterTimeLimit: 120_000,
  });
  if (details.failed) {
    const shrunk = details.counterexample?.[0] as FuzzCase | undefined;
    const request = shrunk ? describeRequest(op.origin, toHttpRequest(op, shrunk, context)) : lastRequest;
    const error =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    report.failure =
      `${report.operation} failed after ${details.numRuns} cases (${details.numShrinks} shrinks)\n` +
      `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_OPERATION='${op.operationId}'\n` +
      `request:\n${request}\n${error}`;
  }
  return report;
}
