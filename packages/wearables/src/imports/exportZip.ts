/**
 * The `export.xml` inside Apple Health's `export.zip`, as a stream (never extracted or held whole), behind the
 * zip-bomb caps: at most `maxEntries` entries, the XML entry at most `maxUncompressedBytes` once inflated and at
 * most `maxRatio` times its compressed size. yauzl checks that an entry inflates to exactly its declared size,
 * so a lying header fails too.
 */
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { AppleExportError } from "./appleHealthXml.ts";

export interface ExportZipLimits {
  /** Default 200 000 (an export holds one file per workout route and ECG). */
  maxEntries?: number;
  /** Default 64 GiB. */
  maxUncompressedBytes?: number;
  /** Default 500 (Apple's XML compresses 10–30 times; generated data a little more). */
  maxRatio?: number;
}

export interface ExportXmlEntry {
  stream: Readable;
  /** The inflated size of export.xml, for progress. */
  uncompressedSize: number;
  close(): void;
}

const isExportXml = (name: string) => name === "export.xml" || /^[^/]+\/export\.xml$/.test(name);

/** Opens `path` (a zip) and streams its export.xml; throws an AppleExportError for what the caps refuse. */
export async function openExportXmlInZip(path: string, limits: ExportZipLimits = {}): Promise<ExportXmlEntry> {
  const { maxEntries = 200_000, maxUncompressedBytes = 64 * 1024 ** 3, maxRatio = 500 } = limits;
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (error) {
    throw new AppleExportError(`not a readable zip file: ${(error as Error).message}`);
  }
  try {
    if (zip.entryCount > maxEntries) {
      throw new AppleExportError(`the zip holds ${zip.entryCount} entries, more than ${maxEntries}: refused`);
    }
    let found: yauzl.Entry | undefined;
    try {
      for await (const entry of zip.eachEntry()) {
        if (entry.fileName === "apple_health_export/export.xml") {
          found = entry;
          break;
        }
        if (!found && isExportXml(entry.fileName)) found = entry;
      }
    } catch (error) {
      throw new AppleExportError(`not a readable zip file: ${(error as Error).message}`);
    }
    if (!found) throw new AppleExportError("the zip holds no apple_health_export/export.xml");
    const { uncompressedSize, compressedSize } = found;
    if (uncompressedSize > maxUncompressedBytes) {
      throw new AppleExportError(`export.xml inflates to ${uncompressedSize} bytes, more than ${maxUncompressedBytes}`);
    }
    if (uncompressedSize > 1024 * 1024 && uncompressedSize > maxRatio * Math.max(1, compressedSize)) {
      throw new AppleExportError(
        `export.xml inflates ${Math.round(uncompressedSize / Math.max(1, compressedSize))} times its compressed size, ` +
          `more than ${maxRatio}: refused as a zip bomb`,
      );
    }
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(found);
    } catch (error) {
      throw new AppleExportError(`cannot read export.xml in the zip: ${(error as Error).message}`);
    }
    return { stream, uncompressedSize, close: () => zip.close() };
  } catch (error) {
    zip.close();
    throw error;
  }
}
