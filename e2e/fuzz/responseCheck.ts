/**
 * What every answer must satisfy: no 5xx, a status the operation documents (or `default`, `4XX`), a JSON
 * body that validates against the documented schema of that status, and an answer within the latency bound.
 * Undocumented statuses can be reported instead of failing (`strictStatus: false`), while the documents
 * catch up.
 */
import type { Operation, ResponseSpec } from "./openapiOperations.ts";
import { validatorOf } from "./schemaValidator.ts";
import type { HttpAnswer } from "./sendRequest.ts";

export interface CheckOptions {
  strictStatus: boolean;
  maxLatencyMs: number;
}

export interface CheckResult {
  problems: string[];
  /** Set when the status is not documented and `strictStatus` is off. */
  undocumentedStatus?: number;
}

/**
 * Compiles every documented JSON response schema of `op` now: compiling the big ones takes a while, and
 * doing it in the middle of a run would block this process while other answers wait to be timed.
 */
export function compileResponseSchemas(op: Operation): void {
  for (const response of Object.values(op.responses)) {
    for (const [mediaType, schema] of Object.entries(response.content)) {
      if (schema && /json/.test(mediaType)) validatorOf(schema);
    }
  }
}

/** The documented response for `status`: exact, then `4XX`, then `default`. */
export function documentedResponse(op: Operation, status: number): ResponseSpec | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

export function checkAnswer(op: Operation, answer: HttpAnswer, options: CheckOptions): CheckResult {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status} (server error)`);
  if (answer.ms > options.maxLatencyMs)
    problems.push(`answered in ${Math.round(answer.ms)} ms (> ${options.maxLatencyMs})`);
  const documented = documentedResponse(op, answer.status);
  let undocumentedStatus: number | undefined;
  if (!documented) {
    if (options.strictStatus) {
      problems.push(`status ${answer.status} is not documented (documented: ${Object.keys(op.responses).join(", ")})`);
    } else {
      undocumentedStatus = answer.status;
    }
  }
  // A HEAD answer has the headers of a GET and never a body (RFC 9110 §9.3.2): nothing to check in it.
  if (op.method === "HEAD") return { problems, undocumentedStatus };
  const mediaType = answer.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const schema = documented?.content[mediaType] ?? (mediaType === "" ? undefined : documented?.content["*/*"]);
  if (documented && /json/.test(mediaType) && schema) {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      problems.push(`the body is not JSON: ${answer.body.slice(0, 200)}`);
      return { problems, undocumentedStatus };
    }
    const validate = validatorOf(schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${e.params ? JSON.stringify(e.params) : ""}`);
      problems.push(
        `the body breaks the ${answer.status} schema: ${errors.join("; ")}; body ${answer.body.slice(0, 300)}`,
      );
    }
  } else if (documented && Object.keys(documented.content).length > 0 && !documented.content[mediaType]) {
    if (answer.body.length > 0) {
      problems.push(
        `content type "${answer.contentType}" is not documented for ${answer.status} (${Object.keys(documented.content).join(", ")})`,
      );
    }
  }
  return { problems, undocumentedStatus };
}
