/**
 * A workout as the fixture writers (fitFile, gpxFile, tcxFile) write it: a deterministic per-second track
 * (a loop near Zürich with a hill, a heart rate climbing with effort) that tests write in each format and expect
 * back from the parsers value by value.
 */

export interface TrackPointFixture {
  /** Epoch ms. */
  at: number;
  lat?: number;
  lon?: number;
  /** meters */
  ele?: number;
  hr?: number;
  /** rpm (strides per minute when running) */
  cadence?: number;
  /** m/s */
  speed?: number;
  /** W */
  power?: number;
  /** Cumulative meters. */
  distance?: number;
}

export interface WorkoutFixture {
  /** FIT sport name (`running`, `cycling`, …); the GPX/TCX writers translate it. */
  sport: string;
  subSport?: string;
  start: number;
  points: TrackPointFixture[];
  /** kcal */
  calories?: number;
  /** Minutes east of UTC the device's clock was in (FIT `local_timestamp`). */
  localOffsetMinutes?: number;
  device?: {
    manufacturer: string;
    product: number;
    productName: string;
    serialNumber: number;
    softwareVersion: number;
  };
}

export interface TrackOptions {
  start?: number;
  seconds?: number;
  sport?: string;
  /** m/s */
  speed?: number;
  withPower?: boolean;
  withPosition?: boolean;
}

/** A deterministic per-second workout: `seconds` points from `start`. */
export function makeWorkoutFixture(options: TrackOptions = {}): WorkoutFixture {
  const start = options.start ?? Date.UTC(2026, 2, 1, 6, 30, 0);
  const seconds = options.seconds ?? 120;
  const speed = options.speed ?? 3.2;
  const points: TrackPointFixture[] = [];
  let distance = 0;
  for (let i = 0; i < seconds; i++) {
    const angle = (i / seconds) * 2 * Math.PI;
    const v = round(speed + 0.4 * Math.sin(i / 7), 3);
    const point: TrackPointFixture = {
      at: start + i * 1000,
      ele: round(410 + 12 * Math.sin(angle), 1),
      hr: Math.round(110 + 50 * (i / seconds) + 3 * Math.sin(i / 5)),
      cadence: Math.round(84 + 4 * Math.sin(i / 11)),
      speed: v,
      distance: round(distance, 2),
    };
    if (options.withPosition !== false) {
      point.lat = round(47.3769 + 0.004 * Math.sin(angle), 7);
      point.lon = round(8.5417 + 0.006 * Math.cos(angle), 7);
    }
    if (options.withPower) point.power = Math.round(240 + 30 * Math.sin(i / 9));
    points.push(point);
    distance += v;
  }
  return {
    sport: options.sport ?? "running",
    start,
    points,
    calories: Math.round(seconds * 0.2),
    localOffsetMinutes: 60,
    device: {
      manufacturer: "garmin",
      product: 3113,
      productName: "Forerunner 945",
      serialNumber: 3_900_123_456,
      softwareVersion: 12.3,
    },
  };
}

const round = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits;
