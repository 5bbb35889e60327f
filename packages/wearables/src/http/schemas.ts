import { type TSchema, Type } from "typebox";

/** `T | null`, as FastAPI's `Optional[T]` fields are. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Open Wearables' error body, `{"detail": "…"}`, with `detail` as the docs' example answer. */
export const ErrorBody = (detail: string) => Type.Object({ detail: Type.String() }, { examples: [{ detail }] });
