/**
 * One fuzz case of an operation, as plain data (so fast-check shrinks it and a failure prints it): valid
 * parameters and body from the document's schemas, at most one mutation, and the credentials. `toHttpRequest`
 * turns it into the bytes sent.
 */
import fc from "fast-check";
import { applyCredential, type CredentialCase, credentialCase, type SchemeSecrets } from "./credentials.ts";
import { hostileString, hugeString } from "./hostileStrings.ts";
import { invalidValue } from "./invalidValues.ts";
import type { Operation, Parameter, Schema } from "./openapiOperations.ts";
import { type KnownValues, validValue } from "./validValues.ts";

export type Mutation =
  | { kind: "invalidParam"; name: string; value: unknown }
  | { kind: "missingParam"; name: string }
  | { kind: "repeatedParam"; name: string; values: unknown[] }
  | { kind: "unknownParam"; name: string; value: unknown }
  | { kind: "rawQuery"; raw: string }
  | { kind: "invalidField"; field: string; value: unknown }
  | { kind: "missingField"; field: string }
  | { kind: "unknownField"; field: string; value: unknown }
  | { kind: "rawBody"; contentType: string | null; raw: string };

export interface FuzzCase {
  params: Record<string, unknown>;
  body: unknown;
  mutation: Mutation | null;
  credential: CredentialCase;
}

export interface HttpRequest {
  method: string;
  /** Path and query, already encoded, as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What a case needs besides its operation: real secrets, other services' keys, real ids. */
export interface FuzzContext {
  secrets: SchemeSecrets;
  foreignKeys: string[];
  known: KnownValues;
}

const isJson = (mediaType: string) => /json/i.test(mediaType);
const bodyProperties = (schema: Schema) => Object.entries((schema.properties ?? {}) as Record<string, Schema>);

/** Broken bodies: syntax, types, sizes and content types the operation does not take. */
function rawBody(op: Operation): fc.Arbitrary<Mutation> {
  const contentType = fc.constantFrom<string | null>(
    op.body?.mediaType ?? "application/json",
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "",
    null,
  );
  const raw = fc.oneof(
    fc.constantFrom(
      "",
      "{",
      "}",
      "[",
      "null",
      "[]",
      '"x"',
      "0",
      "{'a':1}",
      '{"a":1,}',
      "\u0000",
      '{"__proto__":{"x":1}}',
    ),
    hostileString(),
    hugeString(100_000),
    fc.constant(`[${"[".repeat(5000)}${"]".repeat(5000)}]`),
  );
  return fc.record({ contentType, raw }).map((b) => ({ kind: "rawBody" as const, ...b }));
}

function mutation(op: Operation): fc.Arbitrary<Mutation> {
  const options: fc.Arbitrary<Mutation>[] = [];
  const params = op.parameters.filter((p) => p.in === "path" || p.in === "query");
  const queryParams = params.filter((p) => p.in === "query");
  if (params.length > 0) {
    options.push(
      fc
        .constantFrom(...params)
        .chain((p) =>
          invalidValue(p.schema, false).map((value) => ({ kind: "invalidParam" as const, name: p.name, value })),
        ),
    );
  }
  const required = params.filter((p) => p.required);
  if (required.length > 0) {
    options.push(fc.constantFrom(...required).map((p) => ({ kind: "missingParam" as const, name: p.name })));
  }
  if (queryParams.length > 0) {
    options.push(
      fc
        .constantFrom(...queryParams)
        .chain((p) =>
          fc
            .array(fc.oneof(validValue(p.schema), hostileString()), { minLength: 2, maxLength: 4 })
            .map((values) => ({ kind: "repeatedParam" as const, name: p.name, values })),
        ),
    );
  }
  options.push(
    fc
      .record({
        name: fc.oneof(fc.constantFrom("__proto__", "constructor", "limit[]", "a.b"), hostileString()),
        value: hostileString(),
      })
      .map((u) => ({ kind: "unknownParam" as const, ...u })),
    fc
      .constantFrom("%", "%zz", "a=%E0%A4%A", "=", "&&&", "a[b]=1", "a=1&a", `${"x".repeat(4000)}=1`)
      .map((raw) => ({ kind: "rawQuery" as const, raw })),
  );
  if (op.body) {
    options.push(rawBody(op));
    const fields = bodyProperties(op.body.schema);
    if (fields.length > 0) {
      options.push(
        fc
          .constantFrom(...fields)
          .chain(([field, schema]) =>
            invalidValue(schema, true).map((value) => ({ kind: "invalidField" as const, field, value })),
          ),
        fc.constantFrom(...fields).map(([field]) => ({ kind: "missingField" as const, field })),
      );
    }
    options.push(
      fc
        .record({
          field: fc.oneof(fc.constantFrom("__proto__", "constructor", "extra"), hostileString()),
          value: fc.anything(),
        })
        .map((u) => ({ kind: "unknownField" as const, ...u })),
    );
  }
  return fc.oneof(...options);
}

function paramValues(op: Operation, known: KnownValues): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    if (p.in !== "path" && p.in !== "query") continue;
    model[p.name] = validValue(p.schema, known, p.name);
    if (p.required) required.push(p.name);
  }
  return fc.record(model, { requiredKeys: required });
}

/** The cases of `op`: about half valid requests, half with one mutation. */
export function fuzzCase(op: Operation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.record({
    params: paramValues(op, context.known),
    body: op.body ? validValue(op.body.schema, context.known) : fc.constant(undefined),
    mutation: fc.option(mutation(op), { freq: 2 }),
    credential: credentialCase(op, context.secrets, context.foreignKeys),
  });
}

/** Percent-encoding of any string: a lone surrogate (not UTF-8) travels as U+FFFD, as a browser sends it. */
const percentEncode = (text: string): string => encodeURIComponent(text.replace(/\p{Cs}/gu, "\uFFFD"));

/** A value as query or path text: JSON for objects, the text itself for strings. */
const asText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : value === undefined
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);

function queryPairs(p: Parameter, value: unknown): [string, string][] {
  if (Array.isArray(value) && (p.schema.type === "array" || p.in === "query")) {
    return value.map((v) => [p.name, asText(v)]);
  }
  return [[p.name, asText(value)]];
}

function encodeBody(mediaType: string, value: unknown): { contentType: string; body: Buffer } {
  if (isJson(mediaType)) return { contentType: mediaType, body: Buffer.from(JSON.stringify(value) ?? "") };
  const fields = value !== null && typeof value === "object" ? Object.entries(value) : [];
  if (/x-www-form-urlencoded/i.test(mediaType)) {
    const form = new URLSearchParams(fields.map(([k, v]) => [k, asText(v)]));
    return { contentType: mediaType, body: Buffer.from(form.toString()) };
  }
  if (/multipart\/form-data/i.test(mediaType)) {
    const boundary = "fuzzboundary7f3a";
    const parts = fields.map(
      ([k, v]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${k}.bin"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n${asText(v)}\r\n`,
    );
    return {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.from(`${parts.join("")}--${boundary}--\r\n`, "latin1"),
    };
  }
  return { contentType: mediaType, body: Buffer.from(asText(value)) };
}

/** The HTTP request a case stands for. */
export function toHttpRequest(op: Operation, fuzz: FuzzCase, context: FuzzContext): HttpRequest {
  const m = fuzz.mutation;
  const params = { ...fuzz.params };
  if (m?.kind === "invalidParam") params[m.name] = m.value;
  if (m?.kind === "missingParam") delete params[m.name];

  let path = op.path;
  const query: [string, string][] = [];
  for (const p of op.parameters) {
    if (p.in === "path") {
      const value = p.name in params ? percentEncode(asText(params[p.name])) : "";
      path = path.replace(`{${p.name}}`, value);
    } else if (p.in === "query" && p.name in params) {
      const values = m?.kind === "repeatedParam" && m.name === p.name ? m.values : [params[p.name]];
      for (const v of values) query.push(...queryPairs(p, v));
    }
  }
  if (m?.kind === "unknownParam") query.push([m.name, asText(m.value)]);
  const auth = applyCredential(op, fuzz.credential, context.secrets);
  query.push(...auth.query);
  let search = query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join("&");
  if (m?.kind === "rawQuery") search = search ? `${search}&${m.raw}` : m.raw;

  const headers: Record<string, string> = { accept: "application/json", ...auth.headers };
  let body: Buffer | undefined;
  if (m?.kind === "rawBody") {
    if (m.contentType !== null) headers["content-type"] = m.contentType;
    body = Buffer.from(m.raw);
  } else if (op.body && fuzz.body !== undefined) {
    let value = fuzz.body;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const object = { ...(value as Record<string, unknown>) };
      if (m?.kind === "invalidField") object[m.field] = m.value;
      if (m?.kind === "missingField") delete object[m.field];
      if (m?.kind === "unknownField") Object.defineProperty(object, m.field, { value: m.value, enumerable: true });
      value = object;
    }
    const encoded = encodeBody(op.body.mediaType, value);
    headers["content-type"] = encoded.contentType;
    body = encoded.body;
  }
  return { method: op.method, target: `${path}${search ? `?${search}` : ""}`, headers, body };
}
