/**
 * FIT compressed-timestamp records, rewritten as ordinary ones for Garmin's SDK decoder (which refuses them:
 * "compressed timestamp messages are not currently supported", a limit of the decoder, not of the format).
 *
 * The FIT protocol: a record header with bit 7 set is a data message of local type bits 5–6 whose timestamp is
 * not in its fields but 5 bits of offset (bits 0–4) from the last full timestamp (field 253 of any earlier
 * message): `t = (last & ~0x1F) + offset`, plus 32 s when `offset < (last & 0x1F)` (the 5 bits rolled over);
 * `t` is then the last timestamp. Each such record is rewritten as a normal data message carrying `t` in an
 * explicit timestamp field appended to its definition (a redefinition of its local type written before it, and
 * the original definition written back before the next normal message of that type). File sizes and CRCs are
 * recomputed; chained files (several FIT files in one) are rewritten one by one; a file without compressed
 * records is kept byte for byte.
 */
import { CrcCalculator } from "@garmin/fitsdk";

const TIMESTAMP_FIELD = 253;
const UINT32_BASE_TYPE = 0x86;

interface Definition {
  /** The definition record's bytes, as written. */
  raw: Uint8Array;
  littleEndian: boolean;
  /** Bytes of the regular fields, then of the developer fields, of each data message. */
  fieldBytes: number;
  devBytes: number;
  /** Byte offset of the timestamp field in a data message, or null. */
  timestampAt: number | null;
  /** The same definition with a uint32 timestamp appended to its regular fields (built on first need). */
  withTimestamp?: Uint8Array;
}

class Output {
  private chunks: Uint8Array[] = [];
  length = 0;
  push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

const isFitHeader = (b: Uint8Array, at: number): boolean =>
  at + 12 <= b.length &&
  (b[at] === 12 || b[at] === 14) &&
  b[at + 8] === 0x2e &&
  b[at + 9] === 0x46 &&
  b[at + 10] === 0x49 &&
  b[at + 11] === 0x54;

/**
 * `bytes` with every compressed-timestamp record made an ordinary one; `bytes` itself when it has none.
 * Throws an Error when a compressed record has no earlier timestamp to count from or no definition.
 */
export function expandCompressedTimestamps(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Output();
  let changed = false;
  let at = 0;
  while (at < bytes.length) {
    if (!isFitHeader(bytes, at)) {
      out.push(bytes.subarray(at)); // not a FIT file (or trailing bytes): the decoder says what is wrong
      break;
    }
    const headerSize = bytes[at] as number;
    const dataSize = view.getUint32(at + 4, true);
    const end = at + headerSize + dataSize;
    if (end + 2 > bytes.length) {
      out.push(bytes.subarray(at));
      break;
    }
    const data = rewriteRecords(bytes, view, at + headerSize, end);
    if (data === null) {
      out.push(bytes.subarray(at, end + 2));
    } else {
      changed = true;
      const file = new Uint8Array(headerSize + data.length + 2);
      file.set(bytes.subarray(at, at + headerSize));
      const fileView = new DataView(file.buffer);
      fileView.setUint32(4, data.length, true);
      if (headerSize >= 14) fileView.setUint16(12, CrcCalculator.calculateCRC(file, 0, 12), true);
      file.set(data, headerSize);
      fileView.setUint16(headerSize + data.length, CrcCalculator.calculateCRC(file, 0, headerSize + data.length), true);
      out.push(file);
    }
    at = end + 2;
  }
  return changed ? out.bytes() : bytes;
}

/** The records in `[from, end)` rewritten, or null when none is compressed. */
function rewriteRecords(bytes: Uint8Array, view: DataView, from: number, end: number): Uint8Array | null {
  const definitions = new Map<number, Definition>();
  /** Local types whose definition in force (in the output) is the one with a timestamp appended. */
  const augmented = new Set<number>();
  const out = new Output();
  let lastTimestamp: number | null = null;
  let compressed = 0;
  let at = from;
  const need = (n: number) => {
    if (at + n > end) throw new Error("FIT record runs past the end of its file");
  };
  while (at < end) {
    const header = bytes[at] as number;
    if ((header & 0x80) === 0 && (header & 0x40) !== 0) {
      // Definition message.
      const local = header & 0x0f;
      need(6);
      const littleEndian = bytes[at + 2] === 0;
      const numFields = bytes[at + 5] as number;
      let size = 6 + numFields * 3;
      need(size);
      let fieldBytes = 0;
      let timestampAt: number | null = null;
      for (let i = 0; i < numFields; i++) {
        const f = at + 6 + i * 3;
        if (bytes[f] === TIMESTAMP_FIELD && timestampAt === null) timestampAt = fieldBytes;
        fieldBytes += bytes[f + 1] as number;
      }
      let devBytes = 0;
      if ((header & 0x20) !== 0) {
        need(size + 1);
        const numDev = bytes[at + size] as number;
        need(size + 1 + numDev * 3);
        for (let i = 0; i < numDev; i++) devBytes += bytes[at + size + 1 + i * 3 + 1] as number;
        size += 1 + numDev * 3;
      }
      const raw = bytes.subarray(at, at + size);
      definitions.set(local, { raw, littleEndian, fieldBytes, devBytes, timestampAt });
      augmented.delete(local);
      out.push(raw);
      at += size;
    } else if ((header & 0x80) === 0) {
      // Normal data message.
      const local = header & 0x0f;
      const def = definitions.get(local);
      if (!def) throw new Error(`FIT data message of local type ${local} has no definition`);
      const size = 1 + def.fieldBytes + def.devBytes;
      need(size);
      if (def.timestampAt !== null && def.timestampAt + 4 <= def.fieldBytes) {
        const t = view.getUint32(at + 1 + def.timestampAt, def.littleEndian);
        if (t !== 0xffffffff) lastTimestamp = t;
      }
      if (augmented.has(local)) {
        out.push(def.raw);
        augmented.delete(local);
      }
      out.push(bytes.subarray(at, at + size));
      at += size;
    } else {
      // Compressed-timestamp data message.
      const local = (header >> 5) & 0x03;
      const offset = header & 0x1f;
      const def = definitions.get(local);
      if (!def) throw new Error(`FIT compressed-timestamp message of local type ${local} has no definition`);
      if (lastTimestamp === null) {
        throw new Error("FIT compressed-timestamp message without an earlier timestamp to count from");
      }
      const size = 1 + def.fieldBytes + def.devBytes;
      need(size);
      let t: number = (lastTimestamp & ~0x1f) + offset;
      if (offset < (lastTimestamp & 0x1f)) t += 0x20;
      t >>>= 0;
      lastTimestamp = t;
      compressed++;
      const body = bytes.subarray(at + 1, at + size);
      if (def.timestampAt !== null) {
        // A timestamp field already (unusual): the message goes as a normal one with its own fields.
        if (augmented.has(local)) {
          out.push(def.raw);
          augmented.delete(local);
        }
        out.push(Uint8Array.of(local));
        out.push(body);
      } else {
        if (!augmented.has(local)) {
          out.push(withTimestamp(def));
          augmented.add(local);
        }
        const message = new Uint8Array(size + 4);
        message[0] = local;
        message.set(body.subarray(0, def.fieldBytes), 1);
        new DataView(message.buffer).setUint32(1 + def.fieldBytes, t, def.littleEndian);
        message.set(body.subarray(def.fieldBytes), 1 + def.fieldBytes + 4);
        out.push(message);
      }
      at += size;
    }
  }
  return compressed > 0 ? out.bytes() : null;
}

/** The definition record of `def` with a uint32 timestamp field after its regular fields. */
function withTimestamp(def: Definition): Uint8Array {
  if (def.withTimestamp) return def.withTimestamp;
  const raw = def.raw;
  const numFields = raw[5] as number;
  if (numFields >= 255) throw new Error("FIT definition has too many fields to add a timestamp");
  const regularEnd = 6 + numFields * 3;
  const out = new Uint8Array(raw.length + 3);
  out.set(raw.subarray(0, regularEnd));
  out[0] = (raw[0] as number) & 0x6f; // a definition of the same local type, developer flag kept
  out[5] = numFields + 1;
  out.set([TIMESTAMP_FIELD, 4, UINT32_BASE_TYPE], regularEnd);
  out.set(raw.subarray(regularEnd), regularEnd + 3);
  def.withTimestamp = out;
  return out;
}
