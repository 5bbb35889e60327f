/**
 * Everything file imports add to the wearables service, built once per platform context: the imports service
 * (uploads, job status), the runner (the background job), the routes and the operator commands the CLI's
 * `platform wearables import` uses.
 *
 * @example (in createWearables)
 * const imports = createImportsModule({ db, logger, dir: join(config.dataDir, "wearables", "imports") });
 * // routes: imports.registerRoutes(api); jobs: imports.runner.start() … await imports.runner.stop();
 * // operatorCommands: { ...imports.operatorCommands }
 */
import {
  type Database,
  type HttpServer,
  type Logger,
  type OperatorCommand,
  OperatorInputError,
} from "@platform/kernel";
import { UserNotFoundError } from "../domain/userErrors.ts";
import { registerImportRoutes } from "../http/imports.ts";
import { createImportsService, type ImportsService, ImportUploadError, type UploadKind } from "../services/imports.ts";
import { createImportJobsRepository } from "../store/importJobsRepository.ts";
import { type CreateImportRunnerParameters, createImportRunner, type ImportRunner } from "./importJobs.ts";
import { toImportStatus } from "./importStatus.ts";

export interface CreateImportsModuleParameters extends Omit<CreateImportRunnerParameters, "db" | "logger" | "dir"> {
  db: Database;
  logger: Logger;
  /** `<DATA_DIR>/wearables/imports`. */
  dir: string;
  maxUploadBytes?: number;
}

export interface ImportsModule {
  service: ImportsService;
  runner: ImportRunner;
  registerRoutes(api: HttpServer): void;
  /** `import` {user_id, file, kind?, run?} → the job; `import-status` {user_id, task_id}; `import-run` {task_id}. */
  operatorCommands: Record<string, OperatorCommand>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KINDS: readonly UploadKind[] = ["apple", "fit", "gpx", "tcx"];

export function createImportsModule({
  db,
  logger,
  dir,
  maxUploadBytes,
  ...runnerOptions
}: CreateImportsModuleParameters): ImportsModule {
  const repository = createImportJobsRepository(db);
  const runner = createImportRunner({ db, logger, dir, ...runnerOptions });
  const service = createImportsService({ repository, dir, maxUploadBytes, onQueued: () => runner.wake() });

  const uuidArg = (args: Record<string, unknown>, name: string): string => {
    const value = args[name];
    if (typeof value !== "string" || !UUID.test(value)) throw new OperatorInputError(`${name} must be a UUID`);
    return value.toLowerCase();
  };

  return {
    service,
    runner,
    registerRoutes: (api) => registerImportRoutes(api, service),
    operatorCommands: {
      /** Queues the import of a file on this machine; the running platform's runner takes it. */
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
      /** Runs queued jobs in this process until `task_id` is finished (the CLI without a running platform). */
      "import-run": async (args) => {
        const taskId = uuidArg(args, "task_id");
        for (;;) {
          const job = await repository.get(taskId);
          if (!job) throw new OperatorInputError("Import job not found");
          if (job.state === "completed" || job.state === "failed") return toImportStatus(job);
          if (!(await runner.runOnce())) await new Promise((r) => setTimeout(r, 200));
        }
      },
    },
  };
}
