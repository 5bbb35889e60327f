/**
 * FIT activity files for tests, written with Garmin's own SDK Encoder (so the bytes are what a device writes):
 * file_id, device_info, one record per track point, a lap, a session with its totals, the activity.
 */
import { CrcCalculator, Encoder, type Mesg, Profile, Utils } from "@garmin/fitsdk";
import type { WorkoutFixture } from "./workoutFixture.ts";

const DEG_TO_SEMICIRCLE = 2 ** 31 / 180;

/** A global message number of the FIT profile, by its SDK name (FILE_ID, RECORD, …). */
export function mesgNum(name: string): number {
  const n = Profile.MesgNum[name];
  if (n === undefined) throw new Error(`no FIT message named ${name}`);
  return n;
}

/** Encodes one message by its profile name (fields are the SDK's camelCase names). */
export function putMesg(encoder: Encoder, name: string, mesg: Record<string, unknown>): Encoder {
  return encoder.onMesg(mesgNum(name), mesg as Mesg);
}

/** Totals the session message carries; computed from the points unless given. */
export interface FitSessionTotals {
  totalCalories?: number;
  avgHeartRate?: number;
  maxHeartRate?: number;
  minHeartRate?: number;
  totalAscent?: number;
  totalStrides?: number;
}

/** The bytes of a FIT activity file holding `workout`. */
export function writeFitFile(workout: WorkoutFixture, totals: FitSessionTotals = {}): Uint8Array {
  const points = workout.points;
  const first = points[0]?.at ?? workout.start;
  const last = points[points.length - 1]?.at ?? workout.start;
  const end = last + 1000;
  const elapsed = (end - workout.start) / 1000;
  const device = workout.device ?? {
    manufacturer: "development",
    product: 1,
    productName: "Fixture",
    serialNumber: 1,
    softwareVersion: 1,
  };
  const encoder = new Encoder();
  putMesg(encoder, "FILE_ID", {
    type: "activity",
    manufacturer: device.manufacturer,
    product: device.product,
    serialNumber: device.serialNumber,
    timeCreated: new Date(workout.start),
    productName: device.productName,
  });
  putMesg(encoder, "DEVICE_INFO", {
    timestamp: new Date(workout.start),
    deviceIndex: "creator",
    manufacturer: device.manufacturer,
    product: device.product,
    serialNumber: device.serialNumber,
    softwareVersion: device.softwareVersion,
    productName: device.productName,
  });
  putMesg(encoder, "EVENT", {
    timestamp: new Date(first),
    event: "timer",
    eventType: "start",
  });
  for (const p of points) {
    putMesg(encoder, "RECORD", {
      timestamp: new Date(p.at),
      ...(p.lat !== undefined ? { positionLat: Math.round(p.lat * DEG_TO_SEMICIRCLE) } : {}),
      ...(p.lon !== undefined ? { positionLong: Math.round(p.lon * DEG_TO_SEMICIRCLE) } : {}),
      ...(p.ele !== undefined ? { enhancedAltitude: p.ele } : {}),
      ...(p.hr !== undefined ? { heartRate: p.hr } : {}),
      ...(p.cadence !== undefined ? { cadence: p.cadence } : {}),
      ...(p.speed !== undefined ? { enhancedSpeed: p.speed } : {}),
      ...(p.power !== undefined ? { power: p.power } : {}),
      ...(p.distance !== undefined ? { distance: p.distance } : {}),
    });
  }
  const summary = summarize(workout, totals);
  const common = {
    timestamp: new Date(end),
    startTime: new Date(workout.start),
    totalElapsedTime: elapsed,
    totalTimerTime: elapsed,
    sport: workout.sport,
    ...(workout.subSport ? { subSport: workout.subSport } : {}),
    event: "lap",
    eventType: "stop",
    ...summary,
  };
  putMesg(encoder, "LAP", { ...common, messageIndex: 0 });
  putMesg(encoder, "SESSION", { ...common, event: "session", messageIndex: 0, firstLapIndex: 0, numLaps: 1 });
  const localTimestamp = Math.round((end - Utils.FIT_EPOCH_MS) / 1000) + (workout.localOffsetMinutes ?? 0) * 60;
  putMesg(encoder, "ACTIVITY", {
    timestamp: new Date(end),
    totalTimerTime: elapsed,
    numSessions: 1,
    type: "manual",
    event: "activity",
    eventType: "stop",
    ...(workout.localOffsetMinutes !== undefined ? { localTimestamp } : {}),
  });
  return encoder.close();
}

/** The session/lap summary fields of a fixture, as a device would compute them. */
export function summarize(workout: WorkoutFixture, totals: FitSessionTotals = {}) {
  const pts = workout.points;
  const hr = pts.map((p) => p.hr).filter((x): x is number => x !== undefined);
  const speed = pts.map((p) => p.speed).filter((x): x is number => x !== undefined);
  const power = pts.map((p) => p.power).filter((x): x is number => x !== undefined);
  const cadence = pts.map((p) => p.cadence).filter((x): x is number => x !== undefined);
  const ele = pts.map((p) => p.ele).filter((x): x is number => x !== undefined);
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
  const lastDistance = [...pts].reverse().find((p) => p.distance !== undefined)?.distance;
  const out: Record<string, number> = {};
  const set = (k: string, v: number | undefined) => {
    if (v !== undefined && Number.isFinite(v)) out[k] = v;
  };
  set("totalDistance", lastDistance);
  set("totalCalories", totals.totalCalories ?? workout.calories);
  set("avgHeartRate", totals.avgHeartRate ?? (hr.length ? Math.round(avg(hr) as number) : undefined));
  set("maxHeartRate", totals.maxHeartRate ?? (hr.length ? Math.max(...hr) : undefined));
  set("minHeartRate", totals.minHeartRate ?? (hr.length ? Math.min(...hr) : undefined));
  set("enhancedAvgSpeed", speed.length ? Math.round((avg(speed) as number) * 1000) / 1000 : undefined);
  set("enhancedMaxSpeed", speed.length ? Math.max(...speed) : undefined);
  set("avgCadence", cadence.length ? Math.round(avg(cadence) as number) : undefined);
  set("avgPower", power.length ? Math.round(avg(power) as number) : undefined);
  set("maxPower", power.length ? Math.max(...power) : undefined);
  set("enhancedMaxAltitude", ele.length ? Math.max(...ele) : undefined);
  set("enhancedMinAltitude", ele.length ? Math.min(...ele) : undefined);
  set("totalAscent", totals.totalAscent);
  // total_strides is a subfield of total_cycles: the encoder writes main fields only.
  set("totalCycles", totals.totalStrides);
  set("totalMovingTime", pts.length);
  return out;
}

/**
 * The bytes of a FIT activity file whose records after the first carry compressed timestamps (a 1-byte header
 * with a 5-bit time offset, as the Forerunner 70 and others write), built by hand since the SDK's encoder
 * cannot write them: file_id; a record definition with timestamp (little-endian) for the first record and every
 * `fullEvery`-th; a record definition without timestamp (big-endian) for the compressed ones. Records hold heart
 * rate, speed (m/s × 1000) and distance (m × 100).
 */
export function writeCompressedTimestampFitFile(workout: WorkoutFixture, fullEvery = 40): Uint8Array {
  const data: number[] = [];
  const u16 = (v: number, le: boolean) => (le ? [v & 0xff, (v >> 8) & 0xff] : [(v >> 8) & 0xff, v & 0xff]);
  const u32 = (v: number, le: boolean) => {
    const b = [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
    return le ? b.reverse() : b;
  };
  const fitTime = (ms: number) => Math.round((ms - Utils.FIT_EPOCH_MS) / 1000);
  const define = (local: number, le: boolean, global: number, fields: [number, number, number][]) =>
    data.push(0x40 | local, 0, le ? 0 : 1, ...u16(global, le), fields.length, ...fields.flat());
  define(0, true, mesgNum("FILE_ID"), [
    [0, 1, 0x00],
    [1, 2, 0x84],
    [2, 2, 0x84],
    [4, 4, 0x86],
  ]);
  data.push(0, 4, ...u16(1, true), ...u16(1436, true), ...u32(fitTime(workout.start), true));
  const values = [
    [3, 1, 0x02],
    [6, 2, 0x84],
    [5, 4, 0x86],
  ] as [number, number, number][];
  define(1, true, mesgNum("RECORD"), [[253, 4, 0x86], ...values]);
  define(2, false, mesgNum("RECORD"), values);
  workout.points.forEach((p, i) => {
    const t = fitTime(p.at);
    const body = (le: boolean) => [
      p.hr ?? 0xff,
      ...u16(p.speed === undefined ? 0xffff : Math.round(p.speed * 1000), le),
      ...u32(p.distance === undefined ? 0xffffffff : Math.round(p.distance * 100), le),
    ];
    if (i % fullEvery === 0) data.push(1, ...u32(t, true), ...body(true));
    else data.push(0x80 | (2 << 5) | (t & 0x1f), ...body(false));
  });
  const file = new Uint8Array(14 + data.length + 2);
  const view = new DataView(file.buffer);
  file.set([14, 0x20], 0);
  view.setUint16(2, 2195, true);
  view.setUint32(4, data.length, true);
  file.set([0x2e, 0x46, 0x49, 0x54], 8);
  view.setUint16(12, CrcCalculator.calculateCRC(file, 0, 12), true);
  file.set(data, 14);
  view.setUint16(14 + data.length, CrcCalculator.calculateCRC(file, 0, 14 + data.length), true);
  return file;
}
