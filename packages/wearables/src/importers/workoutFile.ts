/**
 * What every workout file parser (FIT, GPX, TCX) answers, and the rules they share: which values are
 * physically possible (anything else is dropped and counted, never stored), how summary figures are derived
 * from the samples when the file does not carry them, and the one error a file that cannot be read gives.
 * The parsers are pure: bytes in, this shape out; the import job writes it through `healthDataWriter`.
 */
import type { DataSourceIdentity, SampleInput, WorkoutDetailsInput, WorkoutInput } from "../store/healthDataWriter.ts";

/** Series type ids (domain/seriesTypes.ts) the workout files feed. */
export const SERIES = {
  heartRate: 1,
  cadence: 180,
  power: 181,
  speed: 182,
  elevation: 209,
  latitude: 210,
  longitude: 211,
} as const;

export type WorkoutFileKind = "fit" | "gpx" | "tcx";

/** Values dropped for one reason: `count` of them, `message` says what and why. */
export interface ImportWarning {
  code: string;
  message: string;
  count: number;
}

/** A parsed workout file: who recorded it, the workout, its per-point samples and what was dropped. */
export interface WorkoutFileImport {
  device: DataSourceIdentity & { provider: string; source: string };
  workout: WorkoutInput;
  samples: SampleInput[];
  warnings: ImportWarning[];
}

export type WorkoutFileErrorCode =
  | "not_a_workout_file"
  | "bad_crc"
  | "truncated"
  | "malformed"
  | "no_data"
  | "too_large";

/** The file cannot be imported; the message is meant for the person who uploaded it (it goes on the job). */
export class WorkoutFileError extends Error {
  override name = "WorkoutFileError" as const;
  constructor(
    readonly kind: WorkoutFileKind,
    readonly code: WorkoutFileErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** At most this many track points per file (11 days at one per second); a bigger file is refused, not cut. */
export const MAX_TRACK_POINTS = 1_000_000;

interface Bounds {
  min: number;
  max: number;
  label: string;
  unit: string;
}

/** Physically possible values per series; HR 0 (sensor lost) and > 250 bpm are not heart rates. */
const BOUNDS: Record<number, Bounds> = {
  [SERIES.heartRate]: { min: 20, max: 250, label: "heart rate", unit: "bpm" },
  [SERIES.cadence]: { min: 0, max: 300, label: "cadence", unit: "rpm" },
  [SERIES.power]: { min: 0, max: 3000, label: "power", unit: "W" },
  [SERIES.speed]: { min: 0, max: 100, label: "speed", unit: "m/s" },
  [SERIES.elevation]: { min: -500, max: 9000, label: "elevation", unit: "m" },
  [SERIES.latitude]: { min: -90, max: 90, label: "latitude", unit: "°" },
  [SERIES.longitude]: { min: -180, max: 180, label: "longitude", unit: "°" },
};

/**
 * Collects samples point by point, dropping impossible values (counted per series) so that what reaches the
 * database is only what a device could have measured.
 */
export class SampleCollector {
  readonly samples: SampleInput[] = [];
  private readonly dropped = new Map<string, ImportWarning>();

  constructor(private readonly zoneOffsetMinutes: number | null = null) {}

  /** Adds one value; `undefined`/`null` mean "not measured" and are skipped silently. */
  add(seriesType: number, recordedAt: number, value: number | null | undefined): boolean {
    if (value === null || value === undefined) return false;
    const b = BOUNDS[seriesType];
    if (!Number.isFinite(value) || (b && (value < b.min || value > b.max))) {
      const label = b?.label ?? `series ${seriesType}`;
      this.warn(
        `out_of_range:${seriesType}`,
        b ? `${label} values outside ${b.min}..${b.max} ${b.unit} dropped` : `${label} values not finite dropped`,
      );
      return false;
    }
    this.samples.push({ seriesType, recordedAt, value, zoneOffsetMinutes: this.zoneOffsetMinutes });
    return true;
  }

  /** Counts one dropped item under `code`. */
  warn(code: string, message: string): void {
    const w = this.dropped.get(code);
    if (w) w.count += 1;
    else this.dropped.set(code, { code, message, count: 1 });
  }

  get warnings(): ImportWarning[] {
    return [...this.dropped.values()];
  }

  values(seriesType: number): number[] {
    return this.samples.filter((s) => s.seriesType === seriesType).map((s) => s.value);
  }
}

/**
 * Physically possible workout-level figures (a file's laps and sessions, or what is derived from its samples):
 * the per-sample bounds for heart rate, speed, power, cadence and elevation, and for amounts a limit no workout
 * reaches that also keeps inside the `workout_details` columns (distance numeric(10,3), speeds numeric(7,3),
 * watts and cadence numeric(7,2), heart rate numeric(5,2)/integer, steps and moving time integer).
 */
const DETAIL_BOUNDS: Record<keyof WorkoutDetailsInput, Bounds> = {
  heartRateMin: { ...(BOUNDS[SERIES.heartRate] as Bounds), label: "minimum heart rate" },
  heartRateMax: { ...(BOUNDS[SERIES.heartRate] as Bounds), label: "maximum heart rate" },
  heartRateAvg: { ...(BOUNDS[SERIES.heartRate] as Bounds), label: "average heart rate" },
  energyBurned: { min: 0, max: 100_000, label: "energy", unit: "kcal" },
  distance: { min: 0, max: 5_000_000, label: "distance", unit: "m" },
  stepsCount: { min: 0, max: 5_000_000, label: "steps", unit: "steps" },
  maxSpeed: { ...(BOUNDS[SERIES.speed] as Bounds), label: "maximum speed" },
  averageSpeed: { ...(BOUNDS[SERIES.speed] as Bounds), label: "average speed" },
  maxWatts: { ...(BOUNDS[SERIES.power] as Bounds), label: "maximum power" },
  averageWatts: { ...(BOUNDS[SERIES.power] as Bounds), label: "average power" },
  averageCadence: { ...(BOUNDS[SERIES.cadence] as Bounds), label: "average cadence" },
  movingTimeSeconds: { min: 0, max: 1_000_000, label: "moving time", unit: "s" },
  totalElevationGain: { min: 0, max: 100_000, label: "elevation gain", unit: "m" },
  elevHigh: { ...(BOUNDS[SERIES.elevation] as Bounds), label: "maximum elevation" },
  elevLow: { ...(BOUNDS[SERIES.elevation] as Bounds), label: "minimum elevation" },
};

/**
 * `details` without its impossible figures (set to null and counted on `collector` under
 * `out_of_range:<field>`, as impossible samples are), so that the samples' figure can stand in for them.
 * A heart rate of 0 is a device's "no sensor": dropped too (null, not 0).
 */
export function boundDetails(details: WorkoutDetailsInput, collector: SampleCollector): WorkoutDetailsInput {
  const out: WorkoutDetailsInput = { ...details };
  for (const key of Object.keys(out) as (keyof WorkoutDetailsInput)[]) {
    const v = out[key];
    if (v === null || v === undefined) continue;
    const b = DETAIL_BOUNDS[key];
    if (Number.isFinite(v) && (!b || (v >= b.min && v <= b.max))) continue;
    out[key] = null;
    collector.warn(
      `out_of_range:${key}`,
      b ? `${b.label} outside ${b.min}..${b.max} ${b.unit} dropped` : `${key} not finite dropped`,
    );
  }
  return out;
}

/** Rounds to `digits` decimals (FIT scales leave binary noise such as 123.39999999999998). */
export const round = (v: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

export const minOf = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => (b < a ? b : a)) : null);
export const maxOf = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => (b > a ? b : a)) : null);
export const meanOf = (xs: number[]): number | null =>
  xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : null;

/** Heart rate, cadence, power, speed and elevation figures from the samples, for what the file lacks. */
export function detailsFromSamples(c: SampleCollector): WorkoutDetailsInput {
  const hr = c.values(SERIES.heartRate);
  const cadence = c.values(SERIES.cadence);
  const power = c.values(SERIES.power);
  const speed = c.values(SERIES.speed);
  const ele = c.values(SERIES.elevation);
  return {
    heartRateMin: minOf(hr),
    heartRateMax: maxOf(hr),
    heartRateAvg: meanOf(hr),
    averageCadence: meanOf(cadence),
    averageWatts: meanOf(power),
    maxWatts: maxOf(power),
    averageSpeed: meanOf(speed),
    maxSpeed: maxOf(speed),
    elevHigh: maxOf(ele),
    elevLow: minOf(ele),
    totalElevationGain: elevationGain(ele),
  };
}

/** `primary` where it has a value, else `fallback` (field by field). */
export function preferDetails(primary: WorkoutDetailsInput, fallback: WorkoutDetailsInput): WorkoutDetailsInput {
  const out: Record<string, number | null> = {};
  const keys = new Set([...Object.keys(fallback), ...Object.keys(primary)]) as Set<keyof WorkoutDetailsInput>;
  for (const k of keys) {
    const p = primary[k];
    out[k] = p !== undefined && p !== null && Number.isFinite(p) ? p : (fallback[k] ?? null);
  }
  return out as WorkoutDetailsInput;
}

/** Climb under a hysteresis of this many meters is GPS/barometer noise, not ascent. */
export const ELEVATION_GAIN_HYSTERESIS_M = 2;

/** Total ascent (m) of an elevation profile, ignoring wiggles smaller than the hysteresis. */
export function elevationGain(ele: number[]): number | null {
  if (ele.length < 2) return null;
  let gain = 0;
  let ref = ele[0] as number;
  for (const e of ele) {
    if (e >= ref + ELEVATION_GAIN_HYSTERESIS_M) {
      gain += e - ref;
      ref = e;
    } else if (e < ref) {
      ref = Math.min(ref, e);
    }
  }
  return round(gain, 1);
}

const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in meters between two WGS84 points. */
export function haversineMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** "+01:00" from minutes east of UTC. */
export function formatZoneOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Epoch ms and the written zone offset (minutes, null for "Z" or none) of an XML schema dateTime, or null when
 * the text is not one. A time without zone is taken as UTC, as GPX and TCX require.
 */
export function parseXmlInstant(text: string): { ms: number; offsetMinutes: number | null } | null {
  const m = ISO_INSTANT.exec(text.trim());
  if (!m) return null;
  const zone = m[8];
  let offsetMinutes: number | null = null;
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    offsetMinutes = (digits[0] === "-" ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const ms =
    Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) +
    Math.round(Number(m[7] ?? 0) * 1000) -
    (offsetMinutes ?? 0) * 60_000;
  return Number.isFinite(ms) ? { ms, offsetMinutes } : null;
}

/** The anchor's provider of a device maker named in a file, `unknown` when it is none of the anchor's. */
export function providerOf(maker: string | null | undefined): string {
  // Garmin writes its models with their accents (vívoactive, fēnix): compare without diacritics.
  const m = (maker ?? "")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
  for (const p of ["garmin", "polar", "suunto", "strava", "whoop", "fitbit", "oura", "samsung", "withings"]) {
    if (m.includes(p)) return p;
  }
  if (m.includes("google")) return "google_health";
  if (m.includes("apple") || m.includes("iphone") || m.includes("health")) return "apple";
  if (/forerunner|fenix|edge \d|venu|vivoactive|vivosmart|vivofit|epix|instinct|enduro/.test(m)) return "garmin";
  return "unknown";
}

/** Workout types of the anchor (WorkoutType) for the sport names GPX `<type>` and TCX `Sport` carry. */
const SPORT_WORDS: [RegExp, string][] = [
  [/trail.?run/, "trail_running"],
  [/treadmill|indoor.?run|virtual.?run/, "treadmill"],
  [/run/, "running"],
  [/mountain.?bik|mtb/, "mountain_biking"],
  [/indoor.?(cycl|bik)|virtual.?ride|spin/, "indoor_cycling"],
  [/e.?bik/, "e_biking"],
  [/cycl|bik|ride/, "cycling"],
  [/open.?water/, "open_water_swimming"],
  [/pool|lap.?swim/, "pool_swimming"],
  [/swim/, "swimming"],
  [/hik/, "hiking"],
  [/walk/, "walking"],
  [/strength|weight/, "strength_training"],
  [/row/, "rowing"],
  [/ski/, "cross_country_skiing"],
  [/yoga/, "yoga"],
];

/** The workout type for a free-text sport (`running`, `Biking`, `Morning Ride`); `other` when unknown. */
export function workoutTypeOfSportText(text: string | null | undefined): string {
  const t = (text ?? "").toLowerCase();
  if (!t) return "other";
  for (const [re, type] of SPORT_WORDS) if (re.test(t)) return type;
  return "other";
}

/** Text of an XML input in chunks, decoding UTF-8 across chunk boundaries. */
export type XmlInput = string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

export async function* xmlChunks(input: XmlInput): AsyncGenerator<string> {
  if (typeof input === "string") {
    yield input;
    return;
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  if (input instanceof Uint8Array) {
    yield decoder.decode(input);
    return;
  }
  for await (const chunk of input as AsyncIterable<string | Uint8Array>) {
    yield typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}
