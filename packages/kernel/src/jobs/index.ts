/** The job and lease layer: durable jobs, recurring jobs, leases with fencing tokens (see each module). */
export { type BackoffOptions, DEFAULT_BACKOFF, retryDelayMs } from "./backoff.ts";
export {
  type EnqueueManyOptions,
  type EnqueueOptions,
  enqueueJob,
  enqueueJobs,
  InvalidJobError,
  type InvalidJobErrorType,
  JOBS_CHANNEL,
} from "./enqueue.ts";
export {
  JobLockLostError,
  type JobLockLostErrorType,
  JobNotFoundError,
  type JobNotFoundErrorType,
  JobSingletonConflictError,
  type JobSingletonConflictErrorType,
  JobStateError,
  type JobStateErrorType,
  JobTimeoutError,
  type JobTimeoutErrorType,
  LeaseLostError,
  type LeaseLostErrorType,
} from "./errors.ts";
export {
  cancelJob,
  getJob,
  type JobRecord,
  type JobState,
  type ListJobsParameters,
  listJobs,
  retryJob,
  type ScheduleDefinition,
} from "./jobStore.ts";
export {
  type AcquireLeaseParameters,
  createLeases,
  InvalidLeaseError,
  type InvalidLeaseErrorType,
  type Lease,
  type LeaseRecord,
  type Leases,
} from "./leases.ts";
export { type QueueSummary, summarizeQueues } from "./queueSummary.ts";
export {
  type LeasedLoopContext,
  type LeasedRunner,
  type RunWhileLeasedParameters,
  runWhileLeased,
} from "./runWhileLeased.ts";
export {
  checkRecurrence,
  InvalidRecurrenceError,
  type InvalidRecurrenceErrorType,
  nextPeriodStart,
  periodStart,
  type RecurrenceOptions,
} from "./schedule.ts";
export {
  type CreateJobWorkerParameters,
  createJobWorker,
  type JobContext,
  type JobHandler,
  type JobWorker,
  processHolderId,
  type QueueDefinition,
  WorkerStoppingError,
  type WorkerStoppingErrorType,
} from "./worker.ts";
