/**
 * Alpaca's own OpenAPI documents (the trading API and the market data API, the generator input of
 * `@alpacahq/alpaca-trade-api` 4.x; Apache-2.0, read from the anchors' documents beside the clone by kernel's
 * `readAnchorDocument`, not shipped with the project) as validators of answers: each answer is checked with ajv against
 * the schema the document gives its operation and status, `$ref`s resolved inside the document, and the
 * checks are tallied. Both documents are OpenAPI 3.0 (`nullable`, `format`s, `example`s and `x-` keywords).
 */
import { readAnchorDocument } from "@platform/kernel/testing";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsPlugin from "ajv-formats";

export type AlpacaDocumentName = "trading" | "marketData";

const FILES: Record<AlpacaDocumentName, string> = {
  trading: "alpaca/trading-api.json",
  marketData: "alpaca/market-data-api.json",
};

/** One failed check: where, and what ajv said. */
export interface AlpacaDocumentFailure {
  document: AlpacaDocumentName;
  request: string;
  status: number;
  errors: string[];
}

export interface AlpacaDocuments {
  /**
   * Checks one answer of `method` on the path `template` (as the document spells it) against the document's
   * response of that status; a status the operation does not declare, or a body where the document declares
   * none, is a failure too. `request` names the call in failures.
   */
  check(
    document: AlpacaDocumentName,
    method: string,
    template: string,
    status: number,
    body: unknown,
    request: string,
  ): void;
  /** How many checks held, and the failures. */
  tally(): { held: number; failures: AlpacaDocumentFailure[] };
}

interface OpenApiResponse {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}

/** A JSON pointer's token (RFC 6901). */
const pointerToken = (token: string) => token.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Where Alpaca's own document is wrong against Alpaca's real answers, the test corrects the document (never
 * the brokerage's answers): `correct(name, document)` may change the parsed document before it is compiled.
 */
export type DocumentCorrection = (name: AlpacaDocumentName, document: OpenApiDocument) => void;

/** The parts of an OpenAPI document the corrections and the validators read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, OpenApiResponse> };
}

export function loadAlpacaDocuments({ correct }: { correct?: DocumentCorrection } = {}): AlpacaDocuments {
  // OpenAPI 3.0 is not JSON Schema: unknown keywords (`example`, `x-go-name`, `discriminator` …) are ignored,
  // `nullable` is understood by ajv itself.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
  const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  // Formats OpenAPI names that JSON Schema does not: numeric widths are checked by `type` already.
  for (const format of ["int32", "int64", "float", "double", "decimal", "uint64"]) ajv.addFormat(format, true);

  const documents = {} as Record<AlpacaDocumentName, OpenApiDocument>;
  for (const [name, file] of Object.entries(FILES) as [AlpacaDocumentName, string][]) {
    const document = readAnchorDocument(file) as OpenApiDocument;
    correct?.(name, document);
    documents[name] = document;
    ajv.addSchema(document, name);
  }

  const validators = new Map<string, ValidateFunction | null>();
  const failures: AlpacaDocumentFailure[] = [];
  let held = 0;

  /** The validator of the response's JSON body, `null` when the document declares no body for it. */
  function validatorOf(document: AlpacaDocumentName, method: string, template: string, status: number) {
    const key = `${document} ${method} ${template} ${status}`;
    if (validators.has(key)) return validators.get(key);
    const operation = documents[document].paths[template]?.[method.toLowerCase()] as
      | { responses: Record<string, OpenApiResponse> }
      | undefined;
    if (!operation) throw new Error(`${document} declares no ${method} ${template}`);
    const declared = operation.responses[String(status)] ?? operation.responses.default;
    if (!declared) return undefined;
    let pointer = `/paths/${pointerToken(template)}/${method.toLowerCase()}/responses/${status}`;
    let response = declared;
    if (response.$ref) {
      pointer = response.$ref.slice(1);
      const name = response.$ref.split("/").at(-1) as string;
      response = documents[document].components.responses[name] as OpenApiResponse;
    }
    const validator = response.content?.["application/json"]?.schema
      ? (ajv.getSchema(`${document}#${pointer}/content/application~1json/schema`) ?? null)
      : null;
    validators.set(key, validator);
    return validator;
  }

  return {
    check(document, method, template, status, body, request) {
      const fail = (errors: string[]) => failures.push({ document, request: `${method} ${request}`, status, errors });
      const validator = validatorOf(document, method, template, status);
      if (validator === undefined) return fail([`status ${status} is not declared`]);
      if (validator === null) {
        if (body === undefined || status >= 400) held++;
        else fail(["the document declares no body"]);
        return;
      }
      if (validator(body)) held++;
      else
        fail((validator.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`));
    },
    tally: () => ({ held, failures }),
  };
}
