/**
 * Lints an OpenAPI document with Spectral's `spectral:oas` ruleset (its recommended rules, as `spectral lint`
 * with `extends: ["spectral:oas"]` runs them), through Spectral's JavaScript API rather than its CLI.
 */
import { Document, type ISpectralDiagnostic, type RulesetDefinition, Spectral } from "@stoplight/spectral-core";
// A CommonJS module whose named exports Node cannot detect: read them from its default export.
import parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";

/** One Spectral finding, shaped to be read in a failure message. */
export interface OpenApiFinding {
  severity: "error" | "warning" | "info" | "hint";
  code: string;
  /** JSON path of the offending node, e.g. `paths./api/users.get`. */
  path: string;
  message: string;
}

const SEVERITIES = ["error", "warning", "info", "hint"] as const;

/** Every finding of `spectral:oas` on `document` (a parsed `/openapi.json`). */
export async function lintOpenApi(document: unknown, source = "openapi.json"): Promise<OpenApiFinding[]> {
  const spectral = new Spectral();
  // The package's declared type of `oas` lacks `extends`, which a ruleset definition requires.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, "recommended"]] });
  const results: ISpectralDiagnostic[] = await spectral.run(
    new Document(JSON.stringify(document, null, 2), parsers.Json, source),
  );
  return results.map((r) => ({
    severity: SEVERITIES[r.severity] ?? "error",
    code: String(r.code),
    path: r.path.join("."),
    message: r.message,
  }));
}

/** One finding a line: `warning operation-description paths./x.get: Operation "description" must be present…`. */
export const formatFindings = (findings: readonly OpenApiFinding[]) =>
  findings.map((f) => `${f.severity} ${f.code} ${f.path}: ${f.message}`).join("\n");
