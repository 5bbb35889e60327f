/**
 * The Apple Health reader (appleExportReader.ts) on a module thread of its own (appleReaderThread.ts): the
 * XML parse and the mapping, about half of an import's time, then run while the importing thread writes the
 * previous chunk; on PGlite, whose database runs on the importing thread, that is the only way they overlap.
 * The samples cross as typed arrays (moved, not copied), the rest by structured clone.
 */
import { type ModuleThread, startModuleThread, type ThreadAnswer } from "@platform/kernel";
import type { DataSourceIdentity, SampleInput } from "../store/healthDataWriter.ts";
import type { AppleRead, AppleReadParameters } from "./appleExportReader.ts";
import { AppleExportError } from "./appleHealthXml.ts";
import type { Pending } from "./appleRecords.ts";

export type ReaderRequest = { op: "open"; parameters: AppleReadParameters } | { op: "next" };

/** One data source's samples as columns: zone offsets NaN when unknown, daily totals -1/0/1 (null/false/true). */
interface SampleColumns {
  key: string;
  identity: DataSourceIdentity;
  seriesTypes: Int16Array;
  /** recordedAt, value, zoneOffsetMinutes of each sample. */
  numbers: Float64Array;
  dailyTotals: Int8Array;
}

type EncodedRead =
  | { kind: "chunk"; samples: SampleColumns[]; rest: Omit<Pending, "samples">; position: AppleRead["position"] }
  | Extract<AppleRead, { kind: "end" }>;

/** Reads `parameters`' export on a thread of its own; `close` stops the thread. */
export function readAppleChunksOnThread(parameters: AppleReadParameters): AsyncGenerator<AppleRead> & {
  close(): Promise<void>;
} {
  const thread: ModuleThread = startModuleThread(new URL("./appleReaderThread.ts", import.meta.url));
  async function* reads(): AsyncGenerator<AppleRead> {
    try {
      await thread.request({ op: "open", parameters } satisfies ReaderRequest);
      for (;;) {
        const read = await thread.request<EncodedRead | null>({ op: "next" } satisfies ReaderRequest);
        if (!read) return;
        yield decodeRead(read);
        if (read.kind === "end") return;
      }
    } catch (error) {
      // The thread's errors come back by name: the export's own stay the export's (they fail the import).
      if ((error as Error).name === "AppleExportError") throw new AppleExportError((error as Error).message);
      throw error;
    } finally {
      await thread.close();
    }
  }
  return Object.assign(reads(), { close: () => thread.close() });
}

/** On the thread: a read as it crosses, its samples' columns moved. */
export function encodeRead(read: AppleRead): ThreadAnswer {
  if (read.kind === "end") return { value: read };
  const samples: SampleColumns[] = [];
  for (const [key, { identity, samples: list }] of read.chunk.samples) {
    const columns: SampleColumns = {
      key,
      identity,
      seriesTypes: new Int16Array(list.length),
      numbers: new Float64Array(list.length * 3),
      dailyTotals: new Int8Array(list.length),
    };
    list.forEach((s, i) => {
      columns.seriesTypes[i] = s.seriesType;
      columns.numbers[i * 3] = s.recordedAt;
      columns.numbers[i * 3 + 1] = s.value;
      columns.numbers[i * 3 + 2] = s.zoneOffsetMinutes ?? Number.NaN;
      columns.dailyTotals[i] = s.isDailyTotal === true ? 1 : s.isDailyTotal === false ? 0 : -1;
    });
    samples.push(columns);
  }
  const { samples: _, ...rest } = read.chunk;
  const value: EncodedRead = { kind: "chunk", samples, rest, position: read.position };
  return {
    value,
    transfer: samples.flatMap((c) => [c.seriesTypes.buffer, c.numbers.buffer, c.dailyTotals.buffer] as ArrayBuffer[]),
  };
}

function decodeRead(read: EncodedRead): AppleRead {
  if (read.kind === "end") return read;
  const samples: Pending["samples"] = new Map();
  for (const c of read.samples) {
    const list: SampleInput[] = new Array(c.seriesTypes.length);
    for (let i = 0; i < list.length; i++) {
      const zone = c.numbers[i * 3 + 2] as number;
      const daily = c.dailyTotals[i];
      const sample: SampleInput = {
        seriesType: c.seriesTypes[i] as number,
        recordedAt: c.numbers[i * 3] as number,
        value: c.numbers[i * 3 + 1] as number,
        zoneOffsetMinutes: Number.isNaN(zone) ? null : zone,
      };
      if (daily !== -1) sample.isDailyTotal = daily === 1;
      list[i] = sample;
    }
    samples.set(c.key, { identity: c.identity, samples: list });
  }
  return { kind: "chunk", chunk: { ...read.rest, samples }, position: read.position };
}
