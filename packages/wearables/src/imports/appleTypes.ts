/**
 * What an Apple Health `Record` becomes: the anchor's HealthKit identifier → series type map
 * (Open Wearables `constants/series_types/sdk/metric_types.py`, every `HK…` entry that has a series type here),
 * and the unit conversion the anchor skips on its XML path (it stores `value` as written, whatever `unit` says).
 *
 * Units: each series type stores one unit (domain/seriesTypes.ts); a Record's `unit` is converted to it:
 * - length: m, km, cm, mm, mi, ft, in, yd → meters (distances, depth, 6MWT) or cm (height, waist, step/stride
 *   length, vertical oscillation);
 * - mass: kg, g, lb, oz, st → kg; energy: kcal, Cal, cal, kJ, J → kcal;
 * - temperature: degC, degF, K → °C; time: s, min, hr, ms, d → the type's min or ms;
 * - `%`: HealthKit exports percentages as fractions (0.97) → 0–100 (97), as the anchor's SDK path stores;
 *   blood alcohol content `%` (fraction of blood) → mg/dL (× 100 000);
 * - rates `count/min`, `/min` → per minute (bpm, breaths/min); speeds m/s, km/hr, mi/hr → m/s;
 * - glucose mg/dL, mmol<180.15…>/L → mg/dL (× 18.0156); volume mL, L, fl_oz_us, cup_us → mL or liters.
 * A unit that cannot be converted to the type's unit is a wrong file: the import fails with that message.
 *
 * Where the anchor maps a type to an unrelated series (underwater depth, Nike Fuel and the sport speeds to
 * `distance_other`, Apple move time to `exercise_time`), this uses the matching series type instead
 * (`underwater_depth`, `nike_fuel`, `speed`); the anchor's dietary types have no series type here and are skipped.
 */
import { seriesTypeByCode } from "../domain/seriesTypes.ts";

const HK = "HKQuantityTypeIdentifier";

/** HealthKit quantity identifier (without the `HKQuantityTypeIdentifier` prefix) → series type code. */
const RECORD_SERIES: Record<string, string> = {
  HeartRate: "heart_rate",
  RestingHeartRate: "resting_heart_rate",
  HeartRateVariabilitySDNN: "heart_rate_variability_sdnn",
  HeartRateRecoveryOneMinute: "heart_rate_recovery_one_minute",
  WalkingHeartRateAverage: "walking_heart_rate_average",
  OxygenSaturation: "oxygen_saturation",
  BloodGlucose: "blood_glucose",
  BloodPressureSystolic: "blood_pressure_systolic",
  BloodPressureDiastolic: "blood_pressure_diastolic",
  RespiratoryRate: "respiratory_rate",
  BasalBodyTemperature: "body_temperature",
  AppleSleepingBreathingDisturbances: "sleeping_breathing_disturbances",
  BloodAlcoholContent: "blood_alcohol_content",
  PeripheralPerfusionIndex: "peripheral_perfusion_index",
  ForcedVitalCapacity: "forced_vital_capacity",
  ForcedExpiratoryVolume1: "forced_expiratory_volume_1",
  PeakExpiratoryFlowRate: "peak_expiratory_flow_rate",
  Height: "height",
  BodyMass: "weight",
  BodyFatPercentage: "body_fat_percentage",
  BodyMassIndex: "body_mass_index",
  LeanBodyMass: "lean_body_mass",
  BodyTemperature: "body_temperature",
  WaistCircumference: "waist_circumference",
  VO2Max: "vo2_max",
  SixMinuteWalkTestDistance: "six_minute_walk_test_distance",
  StepCount: "steps",
  ActiveEnergyBurned: "energy",
  BasalEnergyBurned: "basal_energy",
  AppleStandTime: "stand_time",
  AppleExerciseTime: "exercise_time",
  AppleMoveTime: "exercise_time",
  FlightsClimbed: "flights_climbed",
  PhysicalEffort: "physical_effort",
  DistanceWalkingRunning: "distance_walking_running",
  DistanceCycling: "distance_cycling",
  DistanceSwimming: "distance_swimming",
  DistanceDownhillSnowSports: "distance_downhill_snow_sports",
  DistanceWheelchair: "distance_other",
  DistanceCrossCountrySkiing: "distance_other",
  DistancePaddleSports: "distance_other",
  DistanceRowing: "distance_other",
  DistanceSkatingSports: "distance_other",
  WalkingStepLength: "walking_step_length",
  WalkingSpeed: "walking_speed",
  WalkingDoubleSupportPercentage: "walking_double_support_percentage",
  WalkingAsymmetryPercentage: "walking_asymmetry_percentage",
  AppleWalkingSteadiness: "walking_steadiness",
  StairDescentSpeed: "stair_descent_speed",
  StairAscentSpeed: "stair_ascent_speed",
  RunningPower: "running_power",
  RunningSpeed: "running_speed",
  RunningVerticalOscillation: "running_vertical_oscillation",
  RunningGroundContactTime: "running_ground_contact_time",
  RunningStrideLength: "running_stride_length",
  SwimmingStrokeCount: "swimming_stroke_count",
  CyclingCadence: "cadence",
  CyclingPower: "power",
  CyclingFunctionalThresholdPower: "power",
  CyclingSpeed: "speed",
  EnvironmentalAudioExposure: "environmental_audio_exposure",
  HeadphoneAudioExposure: "headphone_audio_exposure",
  EnvironmentalSoundReduction: "environmental_sound_reduction",
  TimeInDaylight: "time_in_daylight",
  WaterTemperature: "water_temperature",
  UnderwaterDepth: "underwater_depth",
  NumberOfTimesFallen: "number_of_times_fallen",
  InhalerUsage: "inhaler_usage",
  NumberOfAlcoholicBeverages: "number_of_alcoholic_beverages",
  ElectrodermalActivity: "electrodermal_activity",
  UVExposure: "uv_exposure",
  PushCount: "push_count",
  AppleSleepingWristTemperature: "body_temperature",
  AtrialFibrillationBurden: "atrial_fibrillation_burden",
  WorkoutEffortScore: "workout_effort_score",
  EstimatedWorkoutEffortScore: "estimated_workout_effort_score",
  CrossCountrySkiingSpeed: "speed",
  PaddleSportsSpeed: "speed",
  RowingSpeed: "speed",
  InsulinDelivery: "insulin_delivery",
  NikeFuel: "nike_fuel",
  DietaryWater: "hydration",
};

/** Factors to a base unit per dimension (m, kg, kcal, °C offsets apart, s, mL, m/s, mg/dL). */
const LENGTH_M: Record<string, number> = {
  m: 1,
  km: 1000,
  cm: 0.01,
  mm: 0.001,
  mi: 1609.344,
  ft: 0.3048,
  in: 0.0254,
  yd: 0.9144,
};
const MASS_KG: Record<string, number> = { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125, st: 6.35029318 };
const ENERGY_KCAL: Record<string, number> = { kcal: 1, Cal: 1, cal: 0.001, kJ: 1 / 4.184, J: 1 / 4184 };
const TIME_S: Record<string, number> = { s: 1, ms: 0.001, min: 60, hr: 3600, h: 3600, d: 86400 };
const VOLUME_ML: Record<string, number> = { mL: 1, L: 1000, dL: 100, fl_oz_us: 29.5735295625, cup_us: 236.5882365 };
const SPEED_MS: Record<string, number> = {
  "m/s": 1,
  "km/hr": 1 / 3.6,
  "km/h": 1 / 3.6,
  "mi/hr": 0.44704,
  "mi/h": 0.44704,
  "ft/s": 0.3048,
};
const PER_MINUTE: Record<string, number> = { "count/min": 1, "/min": 1, "count/s": 60, "/s": 60, "count/hr": 1 / 60 };
const GLUCOSE_MGDL_PER_MMOL = 18.0156;

type Converter = (value: number, unit: string) => number | undefined;

const scaled =
  (table: Record<string, number>, targetFactor: number): Converter =>
  (value, unit) => {
    const f = table[unit];
    return f === undefined ? undefined : (value * f) / targetFactor;
  };

const exactly =
  (...units: string[]): Converter =>
  (value, unit) =>
    units.includes(unit) ? value : undefined;

const temperatureC: Converter = (value, unit) => {
  if (unit === "degC") return value;
  if (unit === "degF") return ((value - 32) * 5) / 9;
  if (unit === "K") return value - 273.15;
  return undefined;
};

/** `%` (a fraction in HealthKit) → 0–100. */
const percent: Converter = (value, unit) => (unit === "%" ? value * 100 : undefined);

const glucose: Converter = (value, unit) => {
  if (unit === "mg/dL") return value;
  if (/^mmol(<[\d.]+>)?\/L$/.test(unit)) return value * GLUCOSE_MGDL_PER_MMOL;
  return undefined;
};

/** Converter by the stored unit of the series type (domain/seriesTypes.ts), with per-type exceptions below. */
const BY_STORED_UNIT: Record<string, Converter> = {
  bpm: scaled(PER_MINUTE, 1),
  brpm: scaled(PER_MINUTE, 1),
  ms: scaled(TIME_S, 0.001),
  min: scaled(TIME_S, 60),
  percent,
  mg_dl: glucose,
  mmHg: exactly("mmHg"),
  count: exactly("count"),
  score: exactly("count", "%"),
  liters: scaled(VOLUME_ML, 1000),
  "L/min": exactly("L/min"),
  cm: scaled(LENGTH_M, 0.01),
  meters: scaled(LENGTH_M, 1),
  kg: scaled(MASS_KG, 1),
  kg_m2: exactly("count", "kg/m^2"),
  celsius: temperatureC,
  ml_kg_min: exactly("mL/min·kg", "mL/kg·min", "ml/(kg·min)", "mL/(kg*min)"),
  kcal: scaled(ENERGY_KCAL, 1),
  m_per_s: scaled(SPEED_MS, 1),
  watts: exactly("W"),
  rpm: scaled(PER_MINUTE, 1),
  dB: exactly("dBASPL", "dBHL", "dB"),
  mL: scaled(VOLUME_ML, 1),
  met: exactly("kcal/hr·kg", "MET"),
  years: exactly("yr"),
};

/** Exceptions where the stored unit alone does not say how to read the Record. */
const BY_SERIES_CODE: Record<string, Converter> = {
  // BAC is a fraction of blood (0.0008 = 0.08 %) → mg/dL: 0.08 % = 80 mg/dL.
  blood_alcohol_content: (value, unit) => (unit === "%" ? value * 100_000 : glucose(value, unit)),
  // PPI is a percentage; stored 0–100 like the other percentages.
  peripheral_perfusion_index: (value, unit) => (unit === "%" ? value * 100 : unit === "count" ? value : undefined),
  // Stored as the device reports it (HealthKit: siemens; a count of µS otherwise).
  electrodermal_activity: (value, unit) => (unit === "S" ? value * 1e6 : unit === "µS" ? value : undefined),
  insulin_delivery: exactly("IU", "count"),
  walking_steadiness: percent,
  physical_effort: exactly("kcal/hr·kg", "MET", "count"),
  nike_fuel: exactly("count"),
  workout_effort_score: exactly("appleEffortScore", "count"),
  estimated_workout_effort_score: exactly("appleEffortScore", "count"),
};

export interface RecordMapping {
  seriesType: number;
  code: string;
  /** The stored unit (domain/seriesTypes.ts). */
  unit: string;
  convert: Converter;
}

const MAPPINGS = new Map<string, RecordMapping>();
for (const [identifier, code] of Object.entries(RECORD_SERIES)) {
  const series = seriesTypeByCode(code);
  if (!series) throw new Error(`appleTypes: unknown series type ${code}`);
  const convert = BY_SERIES_CODE[code] ?? BY_STORED_UNIT[series.unit];
  if (!convert) throw new Error(`appleTypes: no unit conversion to ${series.unit}`);
  MAPPINGS.set(`${HK}${identifier}`, { seriesType: series.id, code, unit: series.unit, convert });
}

/** The mapping of a Record `type`, or undefined when the anchor does not store that type. */
export const recordMapping = (type: string): RecordMapping | undefined => MAPPINGS.get(type);

/** Every Record type imported (the fixture generator writes one of each). */
export const MAPPED_RECORD_TYPES: readonly string[] = [...MAPPINGS.keys()];

/** Converts `value` in `unit` to the stored unit of `type`; throws a message naming both when it cannot. */
export function convertRecordValue(mapping: RecordMapping, value: number, unit: string): number {
  const converted = mapping.convert(value, unit);
  if (converted === undefined || !Number.isFinite(converted)) {
    throw new UnitConversionError(mapping.code, unit, mapping.unit);
  }
  return converted;
}

/** A Record's unit cannot be read as its type's unit (a wrong or hostile file). */
export class UnitConversionError extends Error {
  override name = "UnitConversionError" as const;
  constructor(
    readonly seriesCode: string,
    readonly unit: string,
    readonly storedUnit: string,
  ) {
    super(`unit "${unit}" of a ${seriesCode} record cannot be converted to ${storedUnit}`);
  }
}

/** Unit of the ActivitySummary energy attribute and the workout totals, converted by the same tables. */
export const toKcal = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined ? value : scaled(ENERGY_KCAL, 1)(value, unit);
export const toMeters = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined ? value : scaled(LENGTH_M, 1)(value, unit);
export const toMinutes = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined ? value : scaled(TIME_S, 60)(value, unit);
export const toBpm = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined ? value : scaled(PER_MINUTE, 1)(value, unit);
export const toMetersPerSecond = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined ? value : scaled(SPEED_MS, 1)(value, unit);
export const toWatts = (value: number, unit: string | undefined): number | undefined =>
  unit === undefined || unit === "W" ? value : undefined;
