/**
 * Reads an Apple Health export (`export.xml`, or the `export.zip` holding it) into chunks of mapped data:
 * items are read and mapped in file order and a chunk is handed out every `chunkItems` items, with the
 * position behind it (items read, file bytes read), which becomes the import's checkpoint once the chunk is
 * committed. Items up to `fromItems` (a resumed import's checkpoint) are read but not mapped. Sleep analysis
 * records are kept to the end (they are small: one per stage interval) and handed out last, for the sessions.
 */
import { createReadStream } from "node:fs";
import { type AppleDate, parseAppleDate } from "./appleDates.ts";
import { readAppleHealthXmlBatches } from "./appleHealthXml.ts";
import { collect, createIdentityCache, emptyPending, type Pending, SLEEP_TYPE, sleepRecord } from "./appleRecords.ts";
import { openExportXmlInZip } from "./exportZip.ts";
import type { SleepStageRecord } from "./sleepSessions.ts";

export interface AppleReadParameters {
  kind: "apple_xml" | "apple_zip";
  path: string;
  /** The uploaded file's size (a zip's bytes read are scaled to it). */
  fileBytes: number;
  /** Items already imported (the checkpoint): read, not mapped again. */
  fromItems: number;
  chunkItems: number;
}

/** Where the reading stands after a chunk: items read (the checkpoint) and bytes of the file read. */
export interface ApplePosition {
  items: number;
  bytesRead: number;
}

export type AppleRead =
  | { kind: "chunk"; chunk: Pending; position: ApplePosition }
  | { kind: "end"; sleepRecords: SleepStageRecord[]; position: ApplePosition };

/**
 * The chunks of the export, then its end. The last chunk may be empty: it moves the checkpoint past items
 * that wrote nothing.
 */
export async function* readAppleChunks(p: AppleReadParameters): AsyncGenerator<AppleRead> {
  const input = await openInput(p.kind, p.path, p.fileBytes);
  let bytesRead = 0;
  let items = 0;
  let lastOffset = 0;
  const sleepRecords: SleepStageRecord[] = [];
  let pending = emptyPending();
  const identityOf = createIdentityCache();
  try {
    const batches = readAppleHealthXmlBatches(input.stream, { onBytes: (n) => (bytesRead = input.toFileBytes(n)) });
    for await (const batch of batches) {
      for (const item of batch) {
        items++;
        if (item.kind === "record" && item.attributes.type === SLEEP_TYPE) {
          sleepRecords.push(sleepRecord(item.attributes, item.line, identityOf));
          continue;
        }
        const start: AppleDate | undefined =
          item.kind === "record" ? parseAppleDate(item.attributes.startDate) : undefined;
        if (start) lastOffset = start.offsetMinutes;
        if (items <= p.fromItems) continue;
        collect(pending, item, lastOffset, identityOf, start);
        pending.items++;
        if (pending.items >= p.chunkItems) {
          yield { kind: "chunk", chunk: pending, position: { items, bytesRead } };
          pending = emptyPending();
        }
      }
    }
    if (pending.items > 0 || items > p.fromItems)
      yield { kind: "chunk", chunk: pending, position: { items, bytesRead } };
    yield { kind: "end", sleepRecords, position: { items, bytesRead } };
  } finally {
    input.close();
  }
}

interface AppleInput {
  stream: AsyncIterable<Uint8Array>;
  /** Maps bytes of XML read to bytes of the uploaded file (the same for XML; scaled for a zip). */
  toFileBytes(xmlBytes: number): number;
  close(): void;
}

async function openInput(kind: string, path: string, fileBytes: number): Promise<AppleInput> {
  if (kind === "apple_zip") {
    const entry = await openExportXmlInZip(path);
    const scale = entry.uncompressedSize > 0 ? fileBytes / entry.uncompressedSize : 1;
    return {
      stream: entry.stream,
      toFileBytes: (n) => Math.min(fileBytes, Math.round(n * scale)),
      close: () => {
        entry.stream.destroy();
        entry.close();
      },
    };
  }
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  return { stream, toFileBytes: (n) => n, close: () => stream.destroy() };
}
