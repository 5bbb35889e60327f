/**
 * The life of the demo person, decided day by day from the seed alone: when they sleep (and in which stages),
 * when they walk, which workouts they do. Every day's plan depends only on (seed, day), so the export can be
 * written type by type in several passes (as Apple orders it) without holding a year in memory, and a longer
 * export only adds days.
 */

/** A deterministic random source: mulberry32 seeded from the keys. */
export type Random = () => number;

export function randomFor(...keys: number[]): Random {
  let h = 0x9e3779b9;
  for (const k of keys) {
    h = Math.imul(h ^ (k | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h ^ Math.floor(k / 2 ** 32), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const uniform = (r: Random, a: number, b: number): number => a + (b - a) * r();
export const normal = (r: Random, mean: number, sd: number): number => {
  const u = Math.max(r(), 1e-12);
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
};
export const chance = (r: Random, p: number): boolean => r() < p;

/** Stream ids keying the random sources, so that one kind of data never shifts another. */
export const STREAM = {
  person: 1,
  sleep: 2,
  nap: 3,
  workouts: 4,
  bouts: 5,
  daily: 6,
  heartRate: 10,
  workoutHeartRate: 11,
  steps: 12,
  energy: 13,
  basal: 14,
  hrv: 15,
  body: 16,
  night: 17,
} as const;

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface Person {
  name: string;
  sex: "HKBiologicalSexFemale" | "HKBiologicalSexMale";
  birthDate: string;
  heightCm: number;
  startWeightKg: number;
  restingHeartRate: number;
  /** kcal per day */
  basalKcal: number;
  strideMeters: number;
}

export function personFor(seed: number): Person {
  const r = randomFor(seed, STREAM.person);
  const female = chance(r, 0.5);
  const year = 1978 + Math.floor(r() * 20);
  const month = 1 + Math.floor(r() * 12);
  const day = 1 + Math.floor(r() * 28);
  const heightCm = Math.round(female ? normal(r, 167, 5) : normal(r, 180, 6));
  const bmi = uniform(r, 21, 25);
  return {
    name: female ? "Alex" : "Sam",
    sex: female ? "HKBiologicalSexFemale" : "HKBiologicalSexMale",
    birthDate: `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`,
    heightCm,
    startWeightKg: Math.round(bmi * (heightCm / 100) ** 2 * 10) / 10,
    restingHeartRate: Math.round(uniform(r, 54, 64)),
    basalKcal: Math.round(female ? uniform(r, 1350, 1500) : uniform(r, 1650, 1850)),
    strideMeters: female ? 0.7 : 0.78,
  };
}

export type StageKind = "AsleepCore" | "AsleepDeep" | "AsleepREM" | "Awake";
export interface Interval {
  start: number;
  end: number;
}
export interface Stage extends Interval {
  stage: StageKind;
}
export type WorkoutKind = "running" | "cycling" | "walking" | "strength";
export interface WorkoutPlan extends Interval {
  kind: WorkoutKind;
  index: number;
  /** Target heart rate (bpm) the effort settles at. */
  targetHr: number;
  /** m/s for running, cycling, walking; 0 for strength. */
  speed: number;
  /** kcal per minute */
  kcalPerMinute: number;
  intervals: boolean;
}
export interface DayPlan {
  /** Local day number (days since 1970-01-01 in the person's zone). */
  day: number;
  /** Epoch ms of local midnight. */
  start: number;
  /** 0 = Sunday */
  weekday: number;
  /** The night ending this morning: stages in order, no gaps. */
  sleep: Stage[];
  nap: Stage[];
  workouts: WorkoutPlan[];
  bouts: (Interval & { cadence: number; phone: boolean })[];
  restingHr: number;
  /** ms */
  hrvSdnn: number;
}

/** Local midnight (epoch ms) of local day `day` in a zone `offsetMinutes` east of UTC. */
export const localMidnight = (day: number, offsetMinutes: number): number => day * DAY - offsetMinutes * MINUTE;

/** The plan of local day `day`. */
export function planDay(seed: number, person: Person, day: number, offsetMinutes: number): DayPlan {
  const start = localMidnight(day, offsetMinutes);
  const weekday = (day + 4) % 7; // 1970-01-01 was a Thursday
  const sleep = planNight(seed, day, start, weekday);
  const wake = sleep[sleep.length - 1]?.end ?? start + 7 * HOUR;
  const workouts = planWorkouts(seed, day, start, weekday);
  const nap = planNap(seed, day, start, workouts);
  const bedtime = nightStart(seed, day + 1, start + DAY, (weekday + 1) % 7);
  const bouts = planBouts(seed, day, wake, bedtime, [...workouts, ...nap]);
  const r = randomFor(seed, day, STREAM.daily);
  const loadYesterday = planWorkouts(seed, day - 1, start - DAY, (weekday + 6) % 7).reduce(
    (a, w) => a + (w.end - w.start) / MINUTE,
    0,
  );
  // Slow fitness gain over the year, a seasonal wobble and day-to-day noise.
  const trend = -2 * Math.sin(((day % 365) / 365) * Math.PI);
  const restingHr = Math.round(person.restingHeartRate + trend + normal(r, 0, 1.5) + (loadYesterday > 70 ? 2 : 0));
  const hrvSdnn = Math.max(12, normal(r, 52 - (restingHr - person.restingHeartRate) * 3, 8));
  return { day, start, weekday, sleep, nap, workouts, bouts, restingHr, hrvSdnn };
}

/** When the night ending on `day` begins (lights out), later before weekends. */
function nightStart(seed: number, day: number, dayStart: number, weekday: number): number {
  const r = randomFor(seed, day, STREAM.sleep);
  const weekendNight = weekday === 6 || weekday === 0; // nights ending Saturday or Sunday
  const minutesBeforeMidnight = normal(r, weekendNight ? 25 : 65, 25);
  return dayStart - Math.round(minutesBeforeMidnight) * MINUTE;
}

function planNight(seed: number, day: number, dayStart: number, weekday: number): Stage[] {
  const begin = nightStart(seed, day, dayStart, weekday);
  const r = randomFor(seed, day, STREAM.sleep, 1);
  const weekendMorning = weekday === 6 || weekday === 0;
  const wake = dayStart + Math.round(normal(r, weekendMorning ? 8 * 60 : 6 * 60 + 55, 20)) * MINUTE;
  const stages: Stage[] = [];
  let t = begin;
  const push = (stage: StageKind, minutes: number) => {
    const end = Math.min(wake, t + Math.max(1, Math.round(minutes)) * MINUTE);
    if (end > t) stages.push({ stage, start: t, end });
    t = end;
  };
  push("Awake", uniform(r, 4, 16));
  for (let cycle = 0; t < wake; cycle++) {
    push("AsleepCore", uniform(r, 25, 45));
    push("AsleepDeep", Math.max(2, normal(r, 28 - cycle * 6, 5)));
    push("AsleepCore", uniform(r, 10, 25));
    push("AsleepREM", Math.max(4, normal(r, 8 + cycle * 6, 4)));
    if (chance(r, 0.35)) push("Awake", uniform(r, 1, 6));
  }
  return stages;
}

function planNap(seed: number, day: number, dayStart: number, workouts: WorkoutPlan[]): Stage[] {
  const r = randomFor(seed, day, STREAM.nap);
  if (!chance(r, 0.07)) return [];
  const start = dayStart + Math.round(uniform(r, 13.5, 15) * 60) * MINUTE;
  const end = start + Math.round(uniform(r, 20, 45)) * MINUTE;
  if (workouts.some((w) => w.start < end + HOUR && w.end > start - HOUR)) return [];
  return [{ stage: "AsleepCore", start, end }];
}

/** A weekly habit: what may happen on each weekday, with its probability and local start hour. */
const WEEK: Record<
  number,
  { kind: WorkoutKind; p: number; hour: number; minutes: [number, number]; intervals?: boolean }[]
> = {
  1: [{ kind: "running", p: 0.7, hour: 18.25, minutes: [35, 50] }],
  2: [{ kind: "strength", p: 0.6, hour: 18.5, minutes: [45, 60] }],
  3: [{ kind: "cycling", p: 0.5, hour: 18, minutes: [60, 90] }],
  4: [{ kind: "running", p: 0.6, hour: 18.25, minutes: [40, 50], intervals: true }],
  5: [{ kind: "walking", p: 0.4, hour: 12.25, minutes: [30, 50] }],
  6: [
    { kind: "running", p: 0.5, hour: 9.5, minutes: [70, 100] },
    { kind: "strength", p: 0.2, hour: 17, minutes: [40, 55] },
  ],
  0: [
    { kind: "walking", p: 0.6, hour: 10.5, minutes: [60, 120] },
    { kind: "cycling", p: 0.3, hour: 14.5, minutes: [90, 150] },
  ],
};

const KIND: Record<WorkoutKind, { hr: [number, number]; speed: [number, number]; kcal: [number, number] }> = {
  running: { hr: [145, 158], speed: [2.7, 3.3], kcal: [10.5, 13] },
  cycling: { hr: [132, 145], speed: [6.5, 8], kcal: [8.5, 11] },
  walking: { hr: [98, 112], speed: [1.3, 1.5], kcal: [4, 5] },
  strength: { hr: [108, 122], speed: [0, 0], kcal: [5.5, 7] },
};

function planWorkouts(seed: number, day: number, dayStart: number, weekday: number): WorkoutPlan[] {
  const r = randomFor(seed, day, STREAM.workouts);
  const out: WorkoutPlan[] = [];
  for (const slot of WEEK[weekday] ?? []) {
    if (!chance(r, slot.p)) continue;
    const k = KIND[slot.kind];
    const start = dayStart + Math.round(slot.hour * 60 + normal(r, 0, 12)) * MINUTE + Math.floor(r() * 60) * 1000;
    const minutes = uniform(r, slot.minutes[0], slot.minutes[1]);
    const end = start + Math.round(minutes * 60) * 1000;
    if (out.some((w) => w.start < end && w.end > start)) continue;
    out.push({
      kind: slot.kind,
      index: out.length,
      start,
      end,
      targetHr: Math.round(uniform(r, k.hr[0], k.hr[1])),
      speed: uniform(r, k.speed[0], k.speed[1]),
      kcalPerMinute: uniform(r, k.kcal[0], k.kcal[1]),
      intervals: slot.intervals === true,
    });
  }
  return out;
}

/** Walking bouts between waking up and going to bed, around workouts and naps. */
function planBouts(seed: number, day: number, wake: number, bedtime: number, busy: Interval[]) {
  const r = randomFor(seed, day, STREAM.bouts);
  const bouts: (Interval & { cadence: number; phone: boolean })[] = [];
  const n = Math.round(uniform(r, 7, 15));
  for (let i = 0; i < n; i++) {
    const start = wake + 20 * MINUTE + Math.floor(r() * Math.max(0, bedtime - wake - 60 * MINUTE));
    const end = start + Math.round(uniform(r, 4, 28) * 60) * 1000;
    const clash = [...busy, ...bouts].some((b) => b.start < end + 2 * MINUTE && b.end > start - 2 * MINUTE);
    if (clash || end > bedtime - 15 * MINUTE) continue;
    bouts.push({ start, end, cadence: uniform(r, 95, 118), phone: chance(r, 0.7) });
  }
  return bouts.sort((a, b) => a.start - b.start);
}
