/**
 * The fuzzer's checks can fail: a 5xx, an undocumented status, a body that breaks its schema, a body that
 * is not JSON and a slow answer are each reported, and a documented answer passes. Valid cases drawn from
 * a schema validate against it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Operation, Schema } from "./openapiOperations.ts";
import { checkAnswer } from "./responseCheck.ts";
import { validatorOf } from "./schemaValidator.ts";
import { validValue } from "./validValues.ts";

const user: Schema = {
  type: "object",
  required: ["id", "email"],
  properties: { id: { type: "string", format: "uuid" }, email: { type: ["string", "null"], format: "email" } },
};

const op: Operation = {
  host: "test",
  origin: "http://127.0.0.1",
  method: "GET",
  path: "/users/{id}",
  operationId: "getUser",
  parameters: [],
  responses: {
    200: { content: { "application/json": user } },
    404: { content: { "application/json": { type: "object", required: ["detail"] } } },
  },
  security: [],
  securitySchemes: {},
};

const json = (status: number, body: unknown, ms = 10) => ({
  status,
  contentType: "application/json; charset=utf-8",
  body: JSON.stringify(body),
  ms,
});
const options = { strictStatus: true, maxLatencyMs: 5_000 };
const ID = "0b6d3c8e-5d2a-4c8e-9a51-0f3e1c2b7a90";

describe("checkAnswer", () => {
  it("passes a documented answer", () => {
    expect(checkAnswer(op, json(200, { id: ID, email: null }), options).problems).toEqual([]);
    expect(checkAnswer(op, json(404, { detail: "no" }), options).problems).toEqual([]);
  });

  it("reports a 5xx, an undocumented status, a schema break, a body that is not JSON and a slow answer", () => {
    const problems = (answer: ReturnType<typeof json>, strictStatus = true) =>
      checkAnswer(op, answer, { ...options, strictStatus }).problems.join("\n");
    expect(problems(json(500, { detail: "x" }))).toMatch(/status 500 \(server error\)/);
    expect(problems(json(418, {}))).toMatch(/status 418 is not documented/);
    expect(checkAnswer(op, json(418, {}), { ...options, strictStatus: false })).toEqual({
      problems: [],
      undocumentedStatus: 418,
    });
    expect(problems(json(200, { id: "not-a-uuid", email: null }))).toMatch(
      /breaks the 200 schema: \/id must match format/,
    );
    expect(problems(json(200, { email: "a@example.com" }))).toMatch(/must have required property 'id'/);
    expect(problems({ ...json(200, {}), body: "<html>" })).toMatch(/the body is not JSON/);
    expect(problems(json(404, { detail: "no" }, 5_001))).toMatch(/answered in 5001 ms/);
  });
});

describe("validValue", () => {
  it("draws values the schema accepts", () => {
    const schema: Schema = {
      type: "object",
      required: ["address", "amount", "kind"],
      properties: {
        address: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" },
        amount: { type: "integer", minimum: 1, maximum: 100 },
        kind: {
          anyOf: [
            { type: "string", enum: ["a"] },
            { type: "string", enum: ["b"] },
          ],
        },
        when: { type: "string", format: "date-time" },
        tags: { type: "array", items: { type: "string", maxLength: 3 }, maxItems: 2 },
      },
      additionalProperties: false,
    };
    const validate = validatorOf(schema);
    fc.assert(
      fc.property(validValue(schema), (value) => {
        expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
