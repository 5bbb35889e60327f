/**
 * Clients generated from our served documents, as a user of the APIs generates them: `openapi-typescript`
 * (its Node API) turns each document into types, the flows in `generated-flows/` are type-checked against
 * them with the TypeScript compiler, and `openapi-fetch` clients run the flows with a middleware that checks
 * every answer against the document it came from.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Middleware } from "openapi-fetch";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { createAnswerCheck, type OpenApiDocument } from "./openapiResponses.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where the flows import their generated types from (`./generated/<name>.ts`): filled by `typecheckFlows`. */
export const FLOWS_DIR = fileURLToPath(new URL("./generated-flows/", import.meta.url));
const GENERATED_IMPORT_DIR = join(FLOWS_DIR, "generated");

/** Writes `<dir>/<name>.ts`, the `paths` and `components` types of each document. */
export async function generateTypes(documents: Record<string, unknown>, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const [name, document] of Object.entries(documents)) {
    const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
    writeFileSync(join(dir, `${name}.ts`), astToString(ast));
  }
}

/**
 * Type-checks `flows` (files of `generated-flows/`) against the types in `generatedDir`, read where the
 * flows import them from (`generated-flows/generated/`), with the repository's compiler options; returns the
 * diagnostics, one line each (empty when the flows compile).
 */
export function typecheckFlows(flows: readonly string[], generatedDir: string): string[] {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
  const host = ts.createCompilerHost(config.options);
  // A flow's `./generated/x.ts` is the freshly generated `<generatedDir>/x.ts`.
  const redirect = (file: string) => {
    const absolute = resolve(file);
    return absolute.startsWith(`${GENERATED_IMPORT_DIR}/`)
      ? join(generatedDir, absolute.slice(GENERATED_IMPORT_DIR.length + 1))
      : file;
  };
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  host.directoryExists = (dir) => resolve(dir) === GENERATED_IMPORT_DIR || (directoryExists?.call(host, dir) ?? true);
  host.fileExists = (file) => fileExists.call(host, redirect(file));
  host.readFile = (file) => readFile.call(host, redirect(file));
  host.getSourceFile = (file, language, onError, create) =>
    getSourceFile.call(host, redirect(file), language, onError, create);
  const program = ts.createProgram({
    rootNames: flows.map((f) => join(FLOWS_DIR, f)),
    options: { ...config.options, noEmit: true },
    host,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(ROOT, "")}:${line + 1}:${character + 1} ${message}`;
  });
}

/**
 * An `openapi-fetch` middleware that checks each answer against `document` (status declared for the
 * operation, body valid by its schema) and records what is wrong in `problems`.
 */
export function answerCheckMiddleware(document: OpenApiDocument, problems: string[]): Middleware {
  const check = createAnswerCheck(document);
  return {
    async onResponse({ request, response, schemaPath }) {
      const text = await response.clone().text();
      let body: unknown = text;
      if (text && response.headers.get("content-type")?.includes("json")) body = JSON.parse(text);
      problems.push(...check({ method: request.method, path: schemaPath, status: response.status, body }));
    },
  };
}
