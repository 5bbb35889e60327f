/**
 * FIT, GPX and TCX imports: one workout with its per-second samples per file. Parsing is helper FILES' pure
 * parsers (`src/importers/{fit,gpx,tcx}.ts`: file bytes → `WorkoutFileImport`); this writes what they answer
 * through the import job: the samples in chunks (each with the job's checkpoint, the number of samples behind
 * it), then the workout with the last chunk. A file the parser refuses fails the job with the parser's message
 * and writes nothing (parsing happens before the first chunk); so does a workout the database refuses (a
 * value overflowing its column): the first chunk's transaction writes the workout on trial (a savepoint rolled
 * back) before any sample, so it fails before anything is committed, never after thousands of samples.
 */
import { readFile, stat } from "node:fs/promises";
import { parseFit } from "../importers/fit.ts";
import { parseGpx } from "../importers/gpx.ts";
import { parseTcx } from "../importers/tcx.ts";
import type { WorkoutFileImport, WorkoutFileKind } from "../importers/workoutFile.ts";
import type { ImportContext } from "./importJobs.ts";

/** File bytes → the workout; throws an Error whose message says what is wrong with the file. */
export type WorkoutFileParser = (bytes: Uint8Array) => WorkoutFileImport | Promise<WorkoutFileImport>;
export type WorkoutFileParsers = Partial<Record<WorkoutFileKind, WorkoutFileParser>>;

/** The parsers of helper FILES. */
export const DEFAULT_WORKOUT_FILE_PARSERS: WorkoutFileParsers = { fit: parseFit, gpx: parseGpx, tcx: parseTcx };

/** A workout file larger than this is refused (they are kilobytes to a few megabytes). */
export const MAX_WORKOUT_FILE_BYTES = 256 * 1024 * 1024;

interface WorkoutFileCheckpoint {
  samples: number;
  /** The workout (written with the last chunk) is in. */
  workout?: boolean;
}

export async function importWorkoutFile(
  context: ImportContext,
  kind: WorkoutFileKind,
  parse: WorkoutFileParser | undefined,
): Promise<{ bytesRead: number }> {
  const { job, writer, chunkItems } = context;
  if (!parse) throw new Error(`${kind.toUpperCase()} import is not available in this build`);
  const size = (await stat(job.file_path)).size;
  if (size > MAX_WORKOUT_FILE_BYTES) throw new Error(`the ${kind} file is larger than ${MAX_WORKOUT_FILE_BYTES} bytes`);
  const checkpoint = (job.checkpoint ?? { samples: 0 }) as unknown as WorkoutFileCheckpoint;
  if (checkpoint.workout) return { bytesRead: size };
  const parsed = await parse(await readFile(job.file_path));
  const total = parsed.samples.length;
  for (let from = checkpoint.samples; ; from += chunkItems) {
    const to = Math.min(total, from + chunkItems);
    const last = to >= total;
    await context.commit(
      async (tx) => {
        const source = await writer.ensureDataSource(tx, job.user_id, parsed.device);
        if (from === 0 && !last) {
          await tx.query("SAVEPOINT workout_file_trial");
          await writer.writeWorkout(tx, job.user_id, source, parsed.workout);
          await tx.query("ROLLBACK TO SAVEPOINT workout_file_trial");
        }
        const samples = await writer.writeSamples(tx, source, parsed.samples.slice(from, to));
        if (!last) return { samples, events: 0 };
        await writer.writeWorkout(tx, job.user_id, source, parsed.workout);
        return { samples, events: 1 };
      },
      {
        bytesRead: last ? size : Math.round((size * to) / Math.max(1, total)),
        itemsProcessed: to,
        checkpoint: { samples: to, workout: last } satisfies WorkoutFileCheckpoint,
      },
    );
    if (last) return { bytesRead: size };
  }
}
