import { type TSchema, Type } from "typebox";

/** `T | null`, as FastAPI's `Optional[T]` fields are. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Open Wearables' error body, `{"detail": "…"}`, with `detail` as the docs' example answer. */
export const ErrorBody = (detail: string) => Type.Object({ detail: Type.String() }, { examples: [{ detail }] });

/** A string of one of `values`, declared as `{"type": "string", "enum": [...]}` (the anchor's enums' form). */
export const StringEnum = (values: readonly string[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<string>({ type: "string", enum: [...values], ...options });
