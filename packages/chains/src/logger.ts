/**
 * The logging surface the chains package needs; a pino logger satisfies it. Method syntax on purpose:
 * TypeScript checks method parameters bivariantly, so pino's overloaded `(obj, msg?)` signatures fit.
 */
export interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug?(...args: unknown[]): void;
}

/** A logger that drops everything (the default when the caller passes none). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };
