/** The errors of the job and lease layer: callers decide with `instanceof` or `name`, never by the message. */

/** No job has this id. */
export class JobNotFoundError extends Error {
  override name = "JobNotFoundError" as const;
  constructor(readonly jobId: string) {
    super(`no job with id ${jobId}`);
  }
}
export type JobNotFoundErrorType = JobNotFoundError & { name: "JobNotFoundError" };

/** The job is not in a state that allows it (retrying an active job, cancelling a completed one). */
export class JobStateError extends Error {
  override name = "JobStateError" as const;
  constructor(
    readonly jobId: string,
    readonly state: string,
    action: string,
  ) {
    super(`job ${jobId} is ${state}: it cannot be ${action}`);
  }
}
export type JobStateErrorType = JobStateError & { name: "JobStateError" };

/** Retrying the job would make a second queued or active job of its singleton key. */
export class JobSingletonConflictError extends Error {
  override name = "JobSingletonConflictError" as const;
  constructor(
    readonly jobId: string,
    readonly singletonKey: string,
  ) {
    super(`job ${jobId} cannot be retried: another job of singleton key "${singletonKey}" is queued or active`);
  }
}
export type JobSingletonConflictErrorType = JobSingletonConflictError & { name: "JobSingletonConflictError" };

/**
 * The worker no longer holds the job (its lock expired and the job was queued again or taken by another worker,
 * or it was cancelled): the transaction that asserted it is rolled back, so nothing of this run is written.
 */
export class JobLockLostError extends Error {
  override name = "JobLockLostError" as const;
  constructor(readonly jobId: string) {
    super(`job ${jobId}: this worker's claim on it was lost`);
  }
}
export type JobLockLostErrorType = JobLockLostError & { name: "JobLockLostError" };

/** A handler ran longer than its queue's `timeoutMs`; the job was failed (retried or dead). */
export class JobTimeoutError extends Error {
  override name = "JobTimeoutError" as const;
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
  ) {
    super(`job ${jobId} ran longer than ${timeoutMs} ms`);
  }
}
export type JobTimeoutErrorType = JobTimeoutError & { name: "JobTimeoutError" };

/**
 * The lease is no longer held with this token (it expired and another holder took it, or it was released):
 * the transaction that asserted it is rolled back, so a paused old holder writes nothing.
 */
export class LeaseLostError extends Error {
  override name = "LeaseLostError" as const;
  constructor(
    readonly leaseName: string,
    readonly token: bigint,
  ) {
    super(`lease "${leaseName}" is no longer held with token ${token}`);
  }
}
export type LeaseLostErrorType = LeaseLostError & { name: "LeaseLostError" };
