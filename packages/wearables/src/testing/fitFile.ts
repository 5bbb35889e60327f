/**
 * FIT activity files for tests, written with Garmin's own SDK Encoder (so the bytes are what a device writes):
 * file_id, device_info, one record per track point, a lap, a session with its totals, the activity.
 */
import { Encoder, type Mesg, Profile, Utils } from "@garmin/fitsdk";
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
