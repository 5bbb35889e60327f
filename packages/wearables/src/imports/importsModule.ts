/**
 * Everything file imports add to the wearables service, built once per platform context: the imports service
 * (uploads, import status), the kernel queue handler that runs imports (`IMPORT_QUEUE`, served by the
 * service's one job worker), the routes and the operator commands the CLI's `platform wearables import` uses.
 *
 * @example (in createWearables)
 * const imports = createImportsModule({ db, logger });
 * // routes: imports.registerRoutes(api); jobs: createJobWorker({ …, queues: { [IMPORT_QUEUE]: imports.queue } })
 * // operatorCommands: { ...imports.operatorCommands }
 */
import {
  createJobWorker,
  type Database,
  type HttpServer,
  type JobStatus,
  type Logger,
  type OperatorCommand,
  OperatorInputError,
  type QueueDefinition,
} from "@platform/kernel";
import { UserNotFoundError } from "../domain/userErrors.ts";
import { registerImportRoutes } from "../http/imports.ts";
import { createImportsService, type ImportsService, ImportUploadError, type UploadKind } from "../services/imports.ts";
import { createImportJobsRepository } from "../store/importJobsRepository.ts";
import {
  type CreateImportQueueParameters,
  createImportQueue,
  IMPORT_QUEUE,
  type ImportJobPayload,
} from "./importJobs.ts";
import { toImportStatus } from "./importStatus.ts";

export interface CreateImportsModuleParameters extends Omit<CreateImportQueueParameters, "db" | "logger"> {
  db: Database;
  logger: Logger;
  maxUploadBytes?: number;
}

export interface ImportsModule {
  service: ImportsService;
  /** The handler of `IMPORT_QUEUE`, for the service's job worker. */
  queue: QueueDefinition<ImportJobPayload>;
  status(): JobStatus;
  registerRoutes(api: HttpServer): void;
  /** `import` {user_id, file, kind?, run?} → the job; `import-status` {user_id, task_id}; `import-run` {task_id}. */
  operatorCommands: Record<string, OperatorCommand>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KINDS: readonly UploadKind[] = ["apple", "fit", "gpx", "tcx"];

export function createImportsModule({
  db,
  logger,
  maxUploadBytes,
  ...queueOptions
}: CreateImportsModuleParameters): ImportsModule {
  const repository = createImportJobsRepository(db);
  const imports = createImportQueue({ db, logger, ...queueOptions });
  const service = createImportsService({ db, repository, tmpDir: queueOptions.tmpDir, maxUploadBytes });

  const uuidArg = (args: Record<string, unknown>, name: string): string => {
    const value = args[name];
    if (typeof value !== "string" || !UUID.test(value)) throw new OperatorInputError(`${name} must be a UUID`);
    return value.toLowerCase();
  };

  return {
    service,
    queue: imports.queue,
    status: imports.status,
    registerRoutes: (api) => registerImportRoutes(api, service),
    operatorCommands: {
      /** Queues the import of a file on this machine (stored in the database); a worker of the platform runs it. */
      import: async (args) => {
        const userId = uuidArg(args, "user_id");
        if (typeof args.file !== "string" || args.file === "") throw new OperatorInputError("file must be a path");
        const kind = args.kind;
        if (kind !== undefined && !KINDS.includes(kind as UploadKind)) {
          throw new OperatorInputError(`kind must be one of ${KINDS.join(", ")}`);
        }
        try {
          return toImportStatus(await service.importPath(userId, args.file, kind as UploadKind | undefined));
        } catch (error) {
          if (error instanceof UserNotFoundError || error instanceof ImportUploadError) {
            throw new OperatorInputError(error.message);
          }
          throw error;
        }
      },
      "import-status": async (args) => {
        const job = await repository.get(uuidArg(args, "task_id"));
        if (!job) throw new OperatorInputError("Import job not found");
        return toImportStatus(job);
      },
      /**
       * Runs import jobs in this process (a kernel job worker of `IMPORT_QUEUE`) until `task_id` is finished:
       * the CLI without a running platform. With PostgreSQL another instance's worker may run it instead.
       */
      "import-run": async (args) => {
        const taskId = uuidArg(args, "task_id");
        if (!(await repository.get(taskId))) throw new OperatorInputError("Import job not found");
        const worker = createJobWorker({ db, logger, queues: { [IMPORT_QUEUE]: imports.queue } });
        await worker.start();
        try {
          for (;;) {
            const job = await repository.get(taskId);
            if (!job) throw new OperatorInputError("Import job not found");
            if (job.state === "completed" || job.state === "failed") return toImportStatus(job);
            await new Promise((r) => setTimeout(r, 200));
          }
        } finally {
          await worker.stop();
        }
      },
    },
  };
}
