import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { normalizeBody } from "./bodyLeniency.ts";

const both = { ignoreUnknownFields: true, nullAsAbsent: true };

describe("normalizeBody", () => {
  it("changes nothing when no rule is on", () => {
    const schema = Type.Object({ a: Type.Optional(Type.String()) }, { additionalProperties: false });
    expect(normalizeBody(schema, { a: null, b: 1 }, {})).toEqual({ a: null, b: 1 });
  });

  it("keeps what a schema leaves open: additionalProperties, matching patternProperties, unconstrained fields", () => {
    const open = Type.Object({ a: Type.String() }, { additionalProperties: true });
    expect(normalizeBody(open, { a: "x", b: 1 }, both)).toEqual({ a: "x", b: 1 });
    const record = Type.Record(Type.String({ pattern: "^x" }), Type.Number());
    expect(normalizeBody(record, { x1: 1 }, both)).toEqual({ x1: 1 });
    const anything = Type.Object({ v: Type.Optional(Type.Unknown()) });
    expect(normalizeBody(anything, { v: null }, both)).toEqual({ v: null });
  });

  it("reads a field as declared when any branch of a union declares it, and null as absent only where no branch takes null", () => {
    const schema = Type.Union([
      Type.Object({ kind: Type.Literal("a"), x: Type.Optional(Type.String()) }),
      Type.Object({ kind: Type.Literal("b"), y: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) }),
    ]);
    expect(normalizeBody(schema, { kind: "a", x: null, y: null, z: 1 }, both)).toEqual({ kind: "a", y: null });
  });

  it("walks arrays of objects and leaves values that are not objects alone", () => {
    const schema = Type.Array(Type.Object({ p: Type.Optional(Type.Number()) }));
    expect(normalizeBody(schema, [{ p: null, q: 1 }, "text", null], both)).toEqual([{}, "text", null]);
    expect(normalizeBody(Type.Object({ a: Type.String() }), "not an object", both)).toBe("not an object");
  });
});
