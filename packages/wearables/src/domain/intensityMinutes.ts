/**
 * Intensity minutes as the anchor counts them (reference §3): each minute's average heart rate is put in a
 * zone of the user's maximum heart rate, 220 − age (190 without a birth date, never below 100). Zone bounds
 * are truncated to whole bpm: light [50 %, 63 %], moderate (63 %, 76 %], vigorous (76 %, 93 %]; a minute
 * under 50 % or over 93 % counts in none.
 */
import { ageOn } from "./activityDay.ts";

/** Max heart rate when the user's birth date is unknown (the anchor assumes about 30 years old). */
export const DEFAULT_MAX_HEART_RATE = 190;
const MIN_MAX_HEART_RATE = 100;

export interface HeartRateZones {
  /** Lowest bpm of the light zone (inclusive). */
  lightMin: number;
  /** Highest bpm of the light zone (inclusive); moderate starts above it. */
  lightMax: number;
  /** Highest bpm of the moderate zone (inclusive); vigorous starts above it. */
  moderateMax: number;
  /** Highest bpm of the vigorous zone (inclusive). */
  vigorousMax: number;
}

export type IntensityZone = "light" | "moderate" | "vigorous";

/** 220 − age on `referenceDate` ("YYYY-MM-DD"), at least 100; 190 without a birth date. */
export function maxHeartRate(birthDate: string | null | undefined, referenceDate: string): number {
  if (!birthDate) return DEFAULT_MAX_HEART_RATE;
  return Math.max(220 - ageOn(birthDate, referenceDate), MIN_MAX_HEART_RATE);
}

export function heartRateZones(maxHr: number): HeartRateZones {
  return {
    lightMin: Math.trunc(maxHr * 0.5),
    lightMax: Math.trunc(maxHr * 0.63),
    moderateMax: Math.trunc(maxHr * 0.76),
    vigorousMax: Math.trunc(maxHr * 0.93),
  };
}

/** The zone of one minute's average heart rate, or null when it is in none. */
export function intensityZoneOf(averageBpm: number, zones: HeartRateZones): IntensityZone | null {
  if (averageBpm >= zones.lightMin && averageBpm <= zones.lightMax) return "light";
  if (averageBpm > zones.lightMax && averageBpm <= zones.moderateMax) return "moderate";
  if (averageBpm > zones.moderateMax && averageBpm <= zones.vigorousMax) return "vigorous";
  return null;
}

/** Minutes per zone of a list of per-minute average heart rates (what the repository's SQL counts). */
export function countIntensityMinutes(
  minuteAverages: readonly number[],
  zones: HeartRateZones,
): Record<IntensityZone, number> {
  const counts = { light: 0, moderate: 0, vigorous: 0 };
  for (const bpm of minuteAverages) {
    const zone = intensityZoneOf(bpm, zones);
    if (zone) counts[zone] += 1;
  }
  return counts;
}
