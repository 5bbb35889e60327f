import { type TSchema, Type } from "typebox";

/** `T | null`, as FastAPI's `Optional[T]` fields are. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ErrorBody = Type.Object({ detail: Type.String() }, { $id: "ErrorBody" });
