/**
 * Which integrity constraint a failed statement broke, read the same way from both drivers (PGlite's and
 * node-postgres' errors both carry PostgreSQL's SQLSTATE `code` and the `constraint` name). Repositories turn
 * it into their own domain errors, so that nothing above the repository reads SQLSTATE codes.
 *
 * @example
 * const violation = constraintViolation(error);
 * if (violation?.kind === "unique" && violation.constraint === "users_email_key") throw new UserAlreadyExistsError("email");
 */
export interface ConstraintViolation {
  kind: "unique" | "foreignKey" | "check";
  /** Name of the constraint or unique index, e.g. `users_email_key`. */
  constraint: string | undefined;
}

const KIND_BY_SQLSTATE: Record<string, ConstraintViolation["kind"]> = {
  "23505": "unique",
  "23503": "foreignKey",
  "23514": "check",
};

/** The violation behind `error`, or undefined when `error` is anything else. */
export function constraintViolation(error: unknown): ConstraintViolation | undefined {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  const kind = typeof code === "string" ? KIND_BY_SQLSTATE[code] : undefined;
  if (!kind) return undefined;
  return { kind, constraint: typeof constraint === "string" ? constraint : undefined };
}
