/**
 * A workout's details from its `WorkoutStatistics` children and totals, in the stored units: heart rate
 * min/max/avg (bpm), active energy (kcal; `totalEnergyBurned` when no statistic), distance (meters: the sum of
 * the Distance* statistics, else `totalDistance`), steps, speed (m/s), power (W), cycling cadence (rpm).
 * The anchor reads heart rate only; a unit that cannot be converted fails the import like a Record's.
 */
import type { WorkoutDetailsInput } from "../store/healthDataWriter.ts";
import { AppleExportError, type Attributes } from "./appleHealthXml.ts";
import { toBpm, toKcal, toMeters, toMetersPerSecond, toWatts } from "./appleTypes.ts";

const HK = "HKQuantityTypeIdentifier";

export function appleWorkoutDetails(
  workout: Attributes,
  statistics: readonly Attributes[],
  line: number,
): WorkoutDetailsInput {
  const details: WorkoutDetailsInput = {};
  const read = (s: Attributes, field: "sum" | "average" | "minimum" | "maximum", convert: typeof toKcal) => {
    const raw = s[field];
    if (raw === undefined || raw === "") return undefined;
    const value = convert(Number(raw), s.unit);
    if (value === undefined || !Number.isFinite(value)) {
      throw new AppleExportError(
        `the Workout at line ${line}: ${s.type} ${field} "${raw}" in unit "${s.unit ?? ""}" cannot be read`,
      );
    }
    return value;
  };
  let distance: number | undefined;
  for (const s of statistics) {
    switch (s.type) {
      case `${HK}HeartRate`:
        details.heartRateMin = read(s, "minimum", toBpm) ?? null;
        details.heartRateMax = read(s, "maximum", toBpm) ?? null;
        details.heartRateAvg = read(s, "average", toBpm) ?? null;
        break;
      case `${HK}ActiveEnergyBurned`:
        details.energyBurned = read(s, "sum", toKcal) ?? null;
        break;
      case `${HK}StepCount`:
        details.stepsCount = read(s, "sum", (v, u) => (u === undefined || u === "count" ? v : undefined)) ?? null;
        break;
      case `${HK}RunningSpeed`:
      case `${HK}CyclingSpeed`:
        details.averageSpeed = read(s, "average", toMetersPerSecond) ?? null;
        details.maxSpeed = read(s, "maximum", toMetersPerSecond) ?? null;
        break;
      case `${HK}RunningPower`:
      case `${HK}CyclingPower`:
        details.averageWatts = read(s, "average", toWatts) ?? null;
        details.maxWatts = read(s, "maximum", toWatts) ?? null;
        break;
      case `${HK}CyclingCadence`:
        details.averageCadence =
          read(s, "average", (v, u) => (u === undefined || u === "count/min" ? v : undefined)) ?? null;
        break;
      default:
        if (s.type?.startsWith(`${HK}Distance`)) {
          const d = read(s, "sum", toMeters);
          if (d !== undefined) distance = (distance ?? 0) + d;
        }
    }
  }
  if (distance === undefined && workout.totalDistance) {
    distance = toMeters(Number(workout.totalDistance), workout.totalDistanceUnit);
    if (distance === undefined || !Number.isFinite(distance)) {
      throw new AppleExportError(
        `the Workout at line ${line} has an unreadable totalDistance unit "${workout.totalDistanceUnit}"`,
      );
    }
  }
  if (distance !== undefined) details.distance = distance;
  if ((details.energyBurned ?? null) === null && workout.totalEnergyBurned) {
    const energy = toKcal(Number(workout.totalEnergyBurned), workout.totalEnergyBurnedUnit);
    if (energy === undefined || !Number.isFinite(energy)) {
      throw new AppleExportError(
        `the Workout at line ${line} has an unreadable totalEnergyBurned unit "${workout.totalEnergyBurnedUnit}"`,
      );
    }
    details.energyBurned = energy;
  }
  return details;
}
