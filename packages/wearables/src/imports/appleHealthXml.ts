/**
 * A streaming reader of Apple Health's `export.xml` (HealthKit Export Version 14): the top-level elements of
 * `<HealthData>` one at a time, in file order, from an async stream of bytes, so that a 4 GB export is read in
 * the memory of one input chunk and one element.
 *
 * Hostile input is refused, never expanded:
 * - a DOCTYPE that declares entities (internal or external, `<!ENTITY …>`): only the DTD's element and attribute
 *   declarations, as Apple writes them, are accepted; references to undeclared entities fail in the parser;
 * - a token (tag, attribute value, text) longer than `maxTokenBytes` without any tag boundary;
 * - a file that ends before `</HealthData>` (truncated), or that is not well-formed.
 * Records inside a `Correlation` also appear at the top level (Apple writes both), so the reader yields the
 * correlation as one item and does not yield its inner records again.
 */
import { SaxesParser } from "saxes";

export type Attributes = Readonly<Record<string, string>>;

/** One top-level element of `<HealthData>`; `line` is where it starts (for error messages). */
export type AppleHealthItem =
  | { kind: "record"; attributes: Attributes; line: number }
  | { kind: "workout"; attributes: Attributes; statistics: Attributes[]; line: number }
  | { kind: "activitySummary"; attributes: Attributes; line: number }
  | { kind: "me"; attributes: Attributes; line: number }
  | { kind: "correlation"; attributes: Attributes; line: number }
  /** ExportDate, ClinicalRecord, Audiogram, VisionPrescription…: counted, not stored. */
  | { kind: "other"; name: string; line: number };

/** The file is not a readable Apple Health export (malformed, truncated or hostile). */
export class AppleExportError extends Error {
  override name = "AppleExportError" as const;
}

export interface ReadAppleHealthXmlParameters {
  /** Called with the number of input bytes consumed so far, after each input chunk. */
  onBytes?: (bytesRead: number) => void;
  /** Longest run of input without a tag boundary (default 8 MiB). */
  maxTokenBytes?: number;
  /** Most WorkoutStatistics kept per workout (default 1 000). */
  maxWorkoutStatistics?: number;
}

const ENTITY_DECLARATION = /<!ENTITY/i;

/** Yields the top-level items of an export.xml read from `input`. */
export async function* readAppleHealthXml(
  input: AsyncIterable<Uint8Array | string>,
  parameters: ReadAppleHealthXmlParameters = {},
): AsyncGenerator<AppleHealthItem> {
  for await (const items of readAppleHealthXmlBatches(input, parameters)) yield* items;
}

/**
 * Yields the top-level items of an export.xml read from `input`, those of each input chunk at once: an
 * async generator's step costs more than mapping an item, so a reader of hundreds of thousands of items
 * takes them by the array.
 */
export async function* readAppleHealthXmlBatches(
  input: AsyncIterable<Uint8Array | string>,
  { onBytes, maxTokenBytes = 8 * 1024 * 1024, maxWorkoutStatistics = 1_000 }: ReadAppleHealthXmlParameters = {},
): AsyncGenerator<AppleHealthItem[]> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let ready: AppleHealthItem[] = [];
  const take = () => {
    const items = ready;
    ready = [];
    return items;
  };
  const stack: string[] = [];
  let rootClosed = false;
  let sawRoot = false;
  let workout: { attributes: Attributes; statistics: Attributes[]; line: number } | null = null;
  let tagEvents = 0;

  parser.on("doctype", (doctype) => {
    if (ENTITY_DECLARATION.test(doctype)) {
      throw new AppleExportError(
        "the DOCTYPE declares entities; entity declarations are refused (XML entity expansion)",
      );
    }
  });
  parser.on("opentag", (tag) => {
    tagEvents++;
    const depth = stack.length;
    stack.push(tag.name);
    const attributes = tag.attributes as Attributes;
    const line = parser.line;
    if (depth === 0) {
      if (tag.name !== "HealthData") throw new AppleExportError(`the root element is <${tag.name}>, not <HealthData>`);
      sawRoot = true;
      return;
    }
    if (depth === 1) {
      switch (tag.name) {
        case "Record":
          ready.push({ kind: "record", attributes, line });
          return;
        case "Workout":
          workout = { attributes, statistics: [], line };
          return;
        case "ActivitySummary":
          ready.push({ kind: "activitySummary", attributes, line });
          return;
        case "Me":
          ready.push({ kind: "me", attributes, line });
          return;
        case "Correlation":
          ready.push({ kind: "correlation", attributes, line });
          return;
        default:
          ready.push({ kind: "other", name: tag.name, line });
          return;
      }
    }
    if (depth === 2 && workout && tag.name === "WorkoutStatistics") {
      if (workout.statistics.length >= maxWorkoutStatistics) {
        throw new AppleExportError(
          `the workout at line ${workout.line} has more than ${maxWorkoutStatistics} statistics`,
        );
      }
      workout.statistics.push(attributes);
    }
  });
  parser.on("closetag", (tag) => {
    tagEvents++;
    stack.pop();
    if (stack.length === 1 && tag.name === "Workout" && workout) {
      ready.push({ kind: "workout", ...workout });
      workout = null;
    }
    if (stack.length === 0) rootClosed = true;
  });

  const write = (text: string) => {
    try {
      parser.write(text);
    } catch (error) {
      if (error instanceof AppleExportError) throw error;
      throw new AppleExportError(`not a well-formed export.xml: ${(error as Error).message}`);
    }
  };

  let bytesRead = 0;
  let bytesSinceTag = 0;
  for await (const chunk of readableInput(input)) {
    const bytes = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    bytesRead += bytes;
    const before = tagEvents;
    let text: string;
    try {
      text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    } catch {
      throw new AppleExportError(`invalid UTF-8 near byte ${bytesRead}`);
    }
    write(text);
    bytesSinceTag = tagEvents === before ? bytesSinceTag + bytes : 0;
    if (bytesSinceTag > maxTokenBytes) {
      throw new AppleExportError(`no tag in ${maxTokenBytes} bytes near byte ${bytesRead}: refused (token too long)`);
    }
    onBytes?.(bytesRead);
    if (ready.length > 0) yield take();
  }
  try {
    write(decoder.decode());
    parser.close();
  } catch (error) {
    if (error instanceof AppleExportError && rootClosed) throw error;
    throw new AppleExportError(
      sawRoot && !rootClosed
        ? `the file ends before </HealthData> (truncated after ${bytesRead} bytes)`
        : `not a well-formed export.xml: ${(error as Error).message}`,
    );
  }
  if (!sawRoot) throw new AppleExportError("no <HealthData> element: not an Apple Health export");
  if (!rootClosed)
    throw new AppleExportError(`the file ends before </HealthData> (truncated after ${bytesRead} bytes)`);
  if (ready.length > 0) yield take();
}

/** The input's read errors (a truncated deflate stream, a size that lies) as AppleExportErrors. */
async function* readableInput(input: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  const iterator = input[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array | string>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (error instanceof AppleExportError) throw error;
      throw new AppleExportError(`cannot read the file: ${(error as Error).message}`);
    }
    if (next.done) return;
    yield next.value;
  }
}
