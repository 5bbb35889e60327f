/**
 * File imports: `POST /users/{user_id}/import/apple/xml/direct` (the anchor's: multipart `file`, an Apple
 * Health export.xml or export.zip), `POST /users/{user_id}/import/{fit|gpx|tcx}` (ours), both answering the
 * anchor's `{status: "processing", task_id, user_id}` with 200 as it does, and
 * `GET /users/{user_id}/imports/{task_id}` (the job's progress and errors). The upload is streamed to disk
 * (@fastify/multipart, with the size limit) and imported in the background by a `wearables.import` job on kernel's job layer.
 */
import multipart from "@fastify/multipart";
import { HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { UserNotFoundError } from "../domain/userErrors.ts";
import { toImportStatus } from "../imports/importStatus.ts";
import {
  ImportJobNotFoundError,
  type ImportsService,
  ImportUploadError,
  type UploadKind,
} from "../services/imports.ts";
import { importsTag } from "./openapiTags.ts";
import { ErrorBody, Nullable } from "./schemas.ts";

const USER_ID = "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12";
const TASK_ID = "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a1b";

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });
const KindPath = Type.Object({
  user_id: Type.String({ format: "uuid" }),
  kind: Type.Union([Type.Literal("fit"), Type.Literal("gpx"), Type.Literal("tcx")], {
    description: "The workout file's format.",
  }),
});
const TaskPath = Type.Object({ user_id: Type.String({ format: "uuid" }), task_id: Type.String({ format: "uuid" }) });

/** Documents the multipart body without validating it (the file is streamed, never parsed as a body). */
const MultipartFile = {
  content: {
    "multipart/form-data": {
      schema: Type.Unsafe<unknown>({
        properties: { file: { type: "string", format: "binary", description: "The file to import." } },
        required: ["file"],
      }),
    },
  },
};

const Accepted = Type.Object(
  {
    status: Type.Literal("processing"),
    task_id: Type.String({ format: "uuid" }),
    user_id: Type.String({ format: "uuid" }),
  },
  { examples: [{ status: "processing", task_id: TASK_ID, user_id: USER_ID }] },
);

const IMPORT_EXAMPLE = {
  task_id: TASK_ID,
  user_id: USER_ID,
  kind: "apple_zip",
  state: "processing",
  file_name: "export.zip",
  file_bytes: 104_857_600,
  bytes_read: 52_428_800,
  items_processed: 1_250_000,
  samples_written: 1_180_000,
  events_written: 312,
  errors: [],
  created_at: "2026-03-01T09:00:00.000Z",
  started_at: "2026-03-01T09:00:01.000Z",
  finished_at: null,
  updated_at: "2026-03-01T09:02:30.000Z",
};

const ImportStatus = Type.Object(
  {
    task_id: Type.String({ format: "uuid" }),
    user_id: Type.String({ format: "uuid" }),
    kind: Type.Union([
      Type.Literal("apple_xml"),
      Type.Literal("apple_zip"),
      Type.Literal("fit"),
      Type.Literal("gpx"),
      Type.Literal("tcx"),
    ]),
    state: Type.Union([
      Type.Literal("queued"),
      Type.Literal("processing"),
      Type.Literal("completed"),
      Type.Literal("failed"),
    ]),
    file_name: Nullable(Type.String()),
    file_bytes: Type.Integer({ description: "Size of the uploaded file." }),
    bytes_read: Type.Integer({ description: "How far into the file the committed import is." }),
    items_processed: Type.Integer({ description: "Elements (records, workouts, samples) read and committed." }),
    samples_written: Type.Integer({ description: "Timeseries samples new or changed." }),
    events_written: Type.Integer({ description: "Workouts and sleep sessions written." }),
    errors: Type.Array(Type.Object({ message: Type.String(), at: Type.String({ format: "date-time" }) })),
    created_at: Type.String({ format: "date-time" }),
    started_at: Nullable(Type.String({ format: "date-time" })),
    finished_at: Nullable(Type.String({ format: "date-time" })),
    updated_at: Type.String({ format: "date-time" }),
  },
  { $id: "ImportStatus", examples: [IMPORT_EXAMPLE] },
);

const unauthorized = { 401: ErrorBody("Invalid or missing API key") };
const uploadErrors = {
  400: ErrorBody("Send the file in the multipart/form-data field `file`"),
  404: ErrorBody(`User with ID: ${USER_ID} not found.`),
  413: ErrorBody("The file is larger than 5368709120 bytes"),
  415: ErrorBody("Send the file as multipart/form-data in the field `file`"),
  ...unauthorized,
};

function throwAsHttpError(error: unknown): never {
  if (error instanceof UserNotFoundError) throw new HttpError(404, error.message);
  if (error instanceof ImportJobNotFoundError) throw new HttpError(404, error.message);
  if (error instanceof ImportUploadError) throw new HttpError(error.statusCode, error.message);
  throw error;
}

/** Registers the import routes (in their own scope, which parses multipart bodies). */
export function registerImportRoutes(app: HttpServer, imports: ImportsService) {
  app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: imports.maxUploadBytes, files: 1, fields: 10, parts: 20 },
    });
    const api = scope as unknown as HttpServer;

    const upload = async (
      request: FastifyRequest,
      userId: string,
      kind: UploadKind,
    ): Promise<Static<typeof Accepted>> => {
      if (!request.isMultipart()) {
        throw new HttpError(415, "Send the file as multipart/form-data in the field `file`");
      }
      const part = await request.file().catch((error: { statusCode?: number; message?: string }) => {
        // busboy refuses a malformed body (a multipart type without its boundary…) with a plain Error: a 500
        // until now, while it is the client's request that is wrong.
        if (error.statusCode && error.statusCode < 500) throw error;
        throw new HttpError(400, `Malformed multipart/form-data body: ${error.message ?? "unreadable"}`);
      });
      if (part?.fieldname !== "file") {
        part?.file.resume();
        throw new HttpError(400, "Send the file in the multipart/form-data field `file`");
      }
      const job = await imports.upload(userId, kind, part.filename || null, part.file).catch(throwAsHttpError);
      return { status: "processing", task_id: job.id, user_id: userId };
    };

    api.post(
      "/users/:user_id/import/apple/xml/direct",
      {
        schema: {
          operationId: "importAppleHealthXml",
          tags: [importsTag.name],
          summary: "Import an Apple Health export",
          description:
            "Upload `export.xml` or the `export.zip` the Health app exports (multipart field `file`). The file is " +
            "saved and imported in the background; follow it with `GET /users/{user_id}/imports/{task_id}`. Units " +
            "are converted, correlations are not counted twice, sleep records become sessions with stages.",
          params: UserPath,
          body: MultipartFile,
          response: { 200: Accepted, ...uploadErrors },
        },
      },
      async (request) => upload(request, (request.params as { user_id: string }).user_id, "apple"),
    );

    api.post(
      "/users/:user_id/import/:kind",
      {
        schema: {
          operationId: "importWorkoutFile",
          tags: [importsTag.name],
          summary: "Import a FIT, GPX or TCX workout file",
          description:
            "Upload one workout file (multipart field `file`): the workout and its per-second heart rate, speed, " +
            "cadence, power, altitude and position samples are imported in the background.",
          params: KindPath,
          body: MultipartFile,
          response: { 200: Accepted, ...uploadErrors },
        },
      },
      async (request) => {
        const params = request.params as Static<typeof KindPath>;
        return upload(request, params.user_id, params.kind);
      },
    );

    api.get(
      "/users/:user_id/imports/:task_id",
      {
        schema: {
          operationId: "getImport",
          tags: [importsTag.name],
          summary: "Get an import's progress",
          description:
            "The import job's state (queued, processing, completed, failed), how far it is, what it wrote and, when " +
            "it failed, why. A failed import keeps what its committed chunks wrote and nothing of the failing one.",
          params: TaskPath,
          response: {
            200: ImportStatus,
            400: ErrorBody('path.task_id: must match format "uuid"'),
            404: ErrorBody("Import job not found"),
            ...unauthorized,
          },
        },
      },
      async (request) => {
        const { user_id, task_id } = request.params as Static<typeof TaskPath>;
        return toImportStatus(await imports.get(user_id, task_id).catch(throwAsHttpError));
      },
    );
  });
}
