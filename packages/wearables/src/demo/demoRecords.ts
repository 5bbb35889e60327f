/**
 * The Apple Health records of one planned day (demoPlan.ts), type by type, with Apple's type identifiers and
 * units: heart rate following the body clock, sleep and effort; steps and distance in walking bouts; active and
 * basal energy; the daily resting heart rate and HRV; nightly SpO2 and breathing rate; weekly body mass; the
 * workouts with their statistics computed from the very records written for them.
 */
import {
  chance,
  type DayPlan,
  HOUR,
  type Interval,
  MINUTE,
  normal,
  type Person,
  planDay,
  randomFor,
  STREAM,
  uniform,
  type WorkoutPlan,
} from "./demoPlan.ts";

export type DemoSource = "watch" | "phone" | "scale";

export interface DemoRecord {
  type: string;
  unit?: string;
  value: string;
  source: DemoSource;
  start: number;
  end: number;
  metadata?: [string, string][];
  /** HRV records: the beats behind the reading (time as Apple writes it, e.g. "1:07:34.69 AM"). */
  beats?: { bpm: number; time: string }[];
}

export interface DemoContext {
  seed: number;
  person: Person;
  offsetMinutes: number;
}

export const HK = {
  heartRate: "HKQuantityTypeIdentifierHeartRate",
  steps: "HKQuantityTypeIdentifierStepCount",
  distanceWalkingRunning: "HKQuantityTypeIdentifierDistanceWalkingRunning",
  distanceCycling: "HKQuantityTypeIdentifierDistanceCycling",
  activeEnergy: "HKQuantityTypeIdentifierActiveEnergyBurned",
  basalEnergy: "HKQuantityTypeIdentifierBasalEnergyBurned",
  restingHeartRate: "HKQuantityTypeIdentifierRestingHeartRate",
  hrvSdnn: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
  oxygenSaturation: "HKQuantityTypeIdentifierOxygenSaturation",
  respiratoryRate: "HKQuantityTypeIdentifierRespiratoryRate",
  bodyMass: "HKQuantityTypeIdentifierBodyMass",
  height: "HKQuantityTypeIdentifierHeight",
  vo2Max: "HKQuantityTypeIdentifierVO2Max",
  sleep: "HKCategoryTypeIdentifierSleepAnalysis",
} as const;

const within = <T extends Interval>(t: number, xs: readonly T[]): T | undefined =>
  xs.find((x) => t >= x.start && t < x.end);
const fixed = (v: number, digits: number) => String(Math.round(v * 10 ** digits) / 10 ** digits);

/** Heart rate during a workout, one reading every 10 s: warm-up, steady effort (or intervals), small drift. */
export function workoutHeartRate(ctx: DemoContext, plan: DayPlan, w: WorkoutPlan): { at: number; bpm: number }[] {
  const r = randomFor(ctx.seed, plan.day, STREAM.workoutHeartRate, w.index);
  const out: { at: number; bpm: number }[] = [];
  const warmup = 6 * MINUTE;
  for (let at = w.start; at < w.end; at += 10_000) {
    const elapsed = at - w.start;
    let target = w.targetHr + 4 * (elapsed / (w.end - w.start)); // cardiac drift
    if (w.intervals && elapsed > 10 * MINUTE && Math.floor(elapsed / (3 * MINUTE)) % 2 === 0) target += 14;
    if (w.kind === "strength") target += Math.floor(elapsed / (90 * 1000)) % 2 === 0 ? 12 : -8;
    const ramp = Math.min(1, elapsed / warmup);
    const bpm = plan.restingHr + 25 + (target - plan.restingHr - 25) * ramp + normal(r, 0, 3);
    out.push({ at, bpm: Math.round(Math.min(195, Math.max(70, bpm))) });
  }
  return out;
}

/** Heart rate through the day: every ~2 min awake, 5 min asleep, each minute walking, 10 s in workouts. */
export function heartRateRecords(ctx: DemoContext, plan: DayPlan): DemoRecord[] {
  const next = planDay(ctx.seed, ctx.person, plan.day + 1, ctx.offsetMinutes);
  const r = randomFor(ctx.seed, plan.day, STREAM.heartRate);
  const asleep = [...plan.sleep, ...plan.nap, ...next.sleep];
  const dayEnd = plan.start + 24 * HOUR;
  const out: DemoRecord[] = [];
  const add = (at: number, bpm: number, motion: string) =>
    out.push({
      type: HK.heartRate,
      unit: "count/min",
      value: String(Math.round(Math.min(200, Math.max(38, bpm)))),
      source: "watch",
      start: at,
      end: at,
      metadata: [["HKMetadataKeyHeartRateMotionContext", motion]],
    });
  let t = plan.start + Math.floor(r() * 60) * 1000;
  while (t < dayEnd) {
    const workout = within(t, plan.workouts);
    if (workout) {
      for (const s of workoutHeartRate(ctx, plan, workout)) add(s.at, s.bpm, "2");
      t = workout.end + Math.floor(uniform(r, 30, 90)) * 1000;
      continue;
    }
    const stage = within(t, asleep);
    const bout = within(t, plan.bouts);
    const hour = (t - plan.start) / HOUR;
    const lastWorkout = plan.workouts.filter((w) => w.end <= t).pop();
    let bpm: number;
    if (stage) {
      const rem = "stage" in stage && stage.stage === "AsleepREM" ? 4 : 0;
      bpm = plan.restingHr - 3 - 2 * Math.sin((Math.PI * Math.min(hour, 24 - hour)) / 8) + rem + normal(r, 0, 1.5);
    } else if (bout) {
      bpm = 88 + (bout.cadence - 95) * 0.6 + normal(r, 0, 4);
    } else {
      bpm = plan.restingHr + 14 + 5 * Math.sin((2 * Math.PI * (hour - 9)) / 24) + normal(r, 0, 4);
      if (lastWorkout) bpm += (lastWorkout.targetHr - bpm) * 0.7 * Math.exp(-(t - lastWorkout.end) / (8 * MINUTE));
    }
    add(t, bpm, bout ? "2" : "1");
    const step = stage ? 5 * MINUTE : bout ? MINUTE : 2 * MINUTE;
    t += step + Math.round(normal(r, 0, 15)) * 1000;
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Steps (watch, and the phone when carried) and walking/running/cycling distance, in chunks of ≤ 10 min. */
export function movementRecords(ctx: DemoContext, plan: DayPlan): { steps: DemoRecord[]; distance: DemoRecord[] } {
  const r = randomFor(ctx.seed, plan.day, STREAM.steps);
  const steps: DemoRecord[] = [];
  const distance: DemoRecord[] = [];
  const chunks = (i: Interval, size: number) => {
    const out: Interval[] = [];
    for (let s = i.start; s < i.end; s += size) out.push({ start: s, end: Math.min(i.end, s + size) });
    return out;
  };
  for (const bout of plan.bouts) {
    for (const c of chunks(bout, 10 * MINUTE)) {
      const n = Math.round((bout.cadence * (c.end - c.start)) / MINUTE + normal(r, 0, 3));
      steps.push({ type: HK.steps, unit: "count", value: String(n), source: "watch", ...c });
      distance.push({
        type: HK.distanceWalkingRunning,
        unit: "km",
        value: fixed((n * ctx.person.strideMeters) / 1000, 5),
        source: "watch",
        ...c,
      });
      if (bout.phone) {
        const m = Math.round(n * uniform(r, 0.9, 1.02));
        steps.push({ type: HK.steps, unit: "count", value: String(m), source: "phone", ...c });
      }
    }
  }
  for (const w of plan.workouts) {
    if (w.kind === "strength") continue;
    for (const c of chunks(w, 5 * MINUTE)) {
      const meters = (w.speed * (c.end - c.start)) / 1000;
      if (w.kind === "cycling") {
        distance.push({ type: HK.distanceCycling, unit: "km", value: fixed(meters / 1000, 5), source: "watch", ...c });
        continue;
      }
      const cadence = w.kind === "running" ? uniform(r, 158, 172) : uniform(r, 108, 120);
      steps.push({
        type: HK.steps,
        unit: "count",
        value: String(Math.round((cadence * (c.end - c.start)) / MINUTE)),
        source: "watch",
        ...c,
      });
      distance.push({
        type: HK.distanceWalkingRunning,
        unit: "km",
        value: fixed(meters / 1000, 5),
        source: "watch",
        ...c,
      });
    }
  }
  const byStart = (a: DemoRecord, b: DemoRecord) => a.start - b.start || a.source.localeCompare(b.source);
  return { steps: steps.sort(byStart), distance: distance.sort(byStart) };
}

/** Active energy: per minute in workouts, per chunk in walks, a trickle each waking hour; basal per hour. */
export function energyRecords(ctx: DemoContext, plan: DayPlan): { active: DemoRecord[]; basal: DemoRecord[] } {
  const r = randomFor(ctx.seed, plan.day, STREAM.energy);
  const active: DemoRecord[] = [];
  const kcal = (v: number, i: Interval): DemoRecord => ({
    type: HK.activeEnergy,
    unit: "kcal",
    value: fixed(v, 3),
    source: "watch",
    ...i,
  });
  for (const w of plan.workouts) {
    for (let s = w.start; s < w.end; s += MINUTE) {
      const end = Math.min(w.end, s + MINUTE);
      active.push(kcal((w.kcalPerMinute * (end - s)) / MINUTE + normal(r, 0, 0.3), { start: s, end }));
    }
  }
  for (const b of plan.bouts) active.push(kcal(((b.end - b.start) / MINUTE) * uniform(r, 3.2, 4.2), b));
  const wake = plan.sleep[plan.sleep.length - 1]?.end ?? plan.start + 7 * HOUR;
  for (let h = Math.ceil((wake - plan.start) / HOUR); h < 22; h++) {
    const start = plan.start + h * HOUR + 50 * MINUTE;
    const slot = { start, end: start + 5 * MINUTE };
    if ([...plan.workouts, ...plan.bouts].some((x) => x.start < slot.end && x.end > slot.start)) continue;
    active.push(kcal(uniform(r, 4, 12), slot));
  }
  const basalRandom = randomFor(ctx.seed, plan.day, STREAM.basal);
  const basal: DemoRecord[] = [];
  for (let h = 0; h < 24; h++) {
    const start = plan.start + h * HOUR;
    const v = (ctx.person.basalKcal / 24) * (1 + normal(basalRandom, 0, 0.02));
    basal.push({ type: HK.basalEnergy, unit: "kcal", value: fixed(v, 3), source: "watch", start, end: start + HOUR });
  }
  return { active: active.sort((a, b) => a.start - b.start), basal };
}

/** Sleep analysis stages of the night ending this morning, and of the nap if any. */
export function sleepRecords(plan: DayPlan): DemoRecord[] {
  return [...plan.sleep, ...plan.nap].map((s) => ({
    type: HK.sleep,
    value: `HKCategoryValueSleepAnalysis${s.stage}`,
    source: "watch",
    start: s.start,
    end: s.end,
  }));
}

/** Readings once a day or night: resting HR, HRV SDNN (with its beats overnight), SpO2, breathing rate. */
export function dailyRecords(ctx: DemoContext, plan: DayPlan): Record<string, DemoRecord[]> {
  const r = randomFor(ctx.seed, plan.day, STREAM.hrv);
  const night = plan.sleep.filter((s) => s.stage !== "Awake");
  const inNight = (f: number) => {
    const a = night[0]?.start ?? plan.start;
    const b = night[night.length - 1]?.end ?? plan.start + 6 * HOUR;
    return a + Math.round(((b - a) * f) / 1000) * 1000;
  };
  const hrvAt = [inNight(0.4), plan.start + Math.round(uniform(r, 10, 12)) * HOUR, plan.start + 17 * HOUR];
  const hrv = hrvAt.map((at, i): DemoRecord => {
    const end = at + 60_000;
    const beats =
      i === 0
        ? Array.from({ length: 8 }, (_, k) => ({
            bpm: Math.round(plan.restingHr - 3 + normal(r, 0, 2)),
            time: appleClock(at + k * 6_500, ctx.offsetMinutes),
          }))
        : undefined;
    return {
      type: HK.hrvSdnn,
      unit: "ms",
      value: fixed(Math.max(10, plan.hrvSdnn + (i === 0 ? 6 : 0) + normal(r, 0, 6)), 4),
      source: "watch",
      start: at,
      end,
      ...(beats ? { beats } : {}),
    };
  });
  const resting = {
    type: HK.restingHeartRate,
    unit: "count/min",
    value: String(plan.restingHr),
    source: "watch" as const,
    start: plan.start + 3 * MINUTE + Math.floor(r() * 60) * 1000,
    end: plan.start + 24 * HOUR - 2 * MINUTE,
  };
  const spo2 = [0.2, 0.5, 0.8].map((f) => {
    const at = inNight(f);
    return {
      type: HK.oxygenSaturation,
      unit: "%",
      value: fixed(Math.min(1, normal(r, 0.965, 0.01)), 2),
      source: "watch" as const,
      start: at,
      end: at,
    };
  });
  const breathing = [0.1, 0.35, 0.6, 0.85].map((f) => {
    const at = inNight(f);
    return {
      type: HK.respiratoryRate,
      unit: "count/min",
      value: fixed(normal(r, 14.5, 0.8), 1),
      source: "watch" as const,
      start: at,
      end: at + 5 * MINUTE,
    };
  });
  return {
    [HK.restingHeartRate]: [resting],
    [HK.hrvSdnn]: hrv,
    [HK.oxygenSaturation]: spo2,
    [HK.respiratoryRate]: breathing,
  };
}

/** Weekly weigh-in (Monday morning), drifting slowly; VO2 max after Saturday runs. */
export function bodyRecords(ctx: DemoContext, plan: DayPlan): Record<string, DemoRecord[]> {
  const r = randomFor(ctx.seed, plan.day, STREAM.body);
  const out: Record<string, DemoRecord[]> = { [HK.bodyMass]: [], [HK.vo2Max]: [] };
  const wake = plan.sleep[plan.sleep.length - 1]?.end ?? plan.start + 7 * HOUR;
  if (plan.weekday === 1) {
    const drift = 1.2 * Math.sin((plan.day / 365) * 2 * Math.PI);
    const at = wake + 12 * MINUTE;
    out[HK.bodyMass]?.push({
      type: HK.bodyMass,
      unit: "kg",
      value: fixed(ctx.person.startWeightKg + drift + normal(r, 0, 0.3), 2),
      source: "scale",
      start: at,
      end: at,
    });
  }
  const run = plan.weekday === 6 ? plan.workouts.find((w) => w.kind === "running") : undefined;
  if (run) {
    out[HK.vo2Max]?.push({
      type: HK.vo2Max,
      unit: "mL/min·kg",
      value: fixed(normal(r, 46 - (plan.restingHr - 55) * 0.4, 0.8), 2),
      source: "watch",
      start: run.end,
      end: run.end,
    });
  }
  return out;
}

/** A workout's Apple statistics, from the records written for it. */
export function workoutStatistics(ctx: DemoContext, plan: DayPlan, w: WorkoutPlan) {
  const hr = workoutHeartRate(ctx, plan, w).map((s) => s.bpm);
  const inside = (x: DemoRecord) => x.start >= w.start && x.end <= w.end;
  const energy = energyRecords(ctx, plan).active.filter(inside);
  const basal = (ctx.person.basalKcal / 24) * ((w.end - w.start) / HOUR);
  const moves = movementRecords(ctx, plan);
  const sum = (xs: DemoRecord[]) => xs.reduce((a, x) => a + Number(x.value), 0);
  return {
    heartRate: {
      average: hr.reduce((a, b) => a + b, 0) / hr.length,
      minimum: Math.min(...hr),
      maximum: Math.max(...hr),
    },
    activeEnergy: sum(energy),
    basalEnergy: basal,
    distanceKm: sum(moves.distance.filter(inside)),
    distanceType: w.kind === "cycling" ? HK.distanceCycling : HK.distanceWalkingRunning,
    steps: sum(moves.steps.filter((x) => x.source === "watch" && inside(x))),
  };
}

/** The Activity rings of the day: move (active kcal), exercise minutes, stand hours. */
export function activitySummary(ctx: DemoContext, plan: DayPlan) {
  const active = energyRecords(ctx, plan).active.reduce((a, x) => a + Number(x.value), 0);
  const exercise = plan.workouts.reduce((a, w) => a + (w.end - w.start) / MINUTE, 0);
  const r = randomFor(ctx.seed, plan.day, STREAM.night);
  return {
    activeEnergyBurned: active,
    exerciseMinutes: Math.round(exercise + plan.bouts.filter(() => chance(r, 0.2)).length * 3),
    standHours: Math.min(16, Math.round(uniform(r, 8, 14))),
  };
}

/** "1:07:34.69 AM": the time of day Apple writes for instantaneous beats, in the person's zone. */
function appleClock(at: number, offsetMinutes: number): string {
  const d = new Date(at + offsetMinutes * MINUTE);
  const h = d.getUTCHours();
  const cs = Math.floor(d.getUTCMilliseconds() / 10);
  const mm = String(d.getUTCMinutes()).padStart(2, "0");
  const ss = String(d.getUTCSeconds()).padStart(2, "0");
  return `${h % 12 === 0 ? 12 : h % 12}:${mm}:${ss}.${String(cs).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
}
