/**
 * The webhook event catalogue (`GET /webhooks/event-types`), with the anchor's names (reference §A2, its
 * `WebhookEventType`): lifecycle events (connection, sync), one event per new session (workout, sleep,
 * menstrual cycle), and for samples two levels: a group event per category (`heart_rate.created`, whose
 * `child_events` list its members) and a granular `series.<series type>.created` per type, with the 0.9 names
 * (`series.active_energy.created`). Series types the anchor groups nowhere (position, elevation, …) send no
 * event, as at the anchor. `endpoint.disabled` is ours: Svix's operational event, sent to the other endpoints.
 */
import { SERIES_TYPES } from "../domain/seriesTypes.ts";

export interface EventType {
  name: string;
  description: string;
  /** A group's granular events; null for the others. */
  child_events: string[] | null;
}

/** Group event → what it covers, and its series types (0.9 names). */
const GROUPS: Record<string, [string, string[]]> = {
  "heart_rate.created": [
    "Heart rate samples: heart rate, resting and walking averages, one-minute recovery, AFib burden.",
    [
      "heart_rate",
      "resting_heart_rate",
      "heart_rate_recovery_one_minute",
      "walking_heart_rate_average",
      "atrial_fibrillation_burden",
    ],
  ],
  "heart_rate_variability.created": [
    "Heart rate variability samples (SDNN, RMSSD).",
    ["heart_rate_variability_sdnn", "heart_rate_variability_rmssd"],
  ],
  "recovery_score.created": ["Recovery samples (Garmin Body Battery).", ["garmin_body_battery"]],
  "spo2.created": ["Blood oxygen samples.", ["oxygen_saturation", "peripheral_perfusion_index"]],
  "blood_glucose.created": [
    "Blood glucose, blood alcohol and insulin delivery samples.",
    ["blood_glucose", "blood_alcohol_content", "insulin_delivery"],
  ],
  "blood_pressure.created": ["Blood pressure samples.", ["blood_pressure_systolic", "blood_pressure_diastolic"]],
  "respiratory_rate.created": [
    "Respiratory samples: rate, breathing disturbances, spirometry.",
    [
      "respiratory_rate",
      "sleeping_breathing_disturbances",
      "breathing_disturbance_index",
      "forced_vital_capacity",
      "forced_expiratory_volume_1",
      "peak_expiratory_flow_rate",
    ],
  ],
  "body_composition.created": [
    "Body composition samples: height, weight, fat, BMI, lean and muscle mass, waist.",
    [
      "height",
      "weight",
      "body_fat_percentage",
      "body_mass_index",
      "lean_body_mass",
      "body_fat_mass",
      "skeletal_muscle_mass",
      "waist_circumference",
    ],
  ],
  "body_temperature.created": [
    "Body and skin temperature samples.",
    [
      "body_temperature",
      "skin_temperature",
      "skin_temperature_deviation",
      "skin_temperature_trend_deviation",
      "garmin_skin_temperature",
    ],
  ],
  "stress.created": ["Stress samples.", ["garmin_stress_level", "electrodermal_activity"]],
  "fitness_metrics.created": [
    "Fitness metrics: VO2 max, six-minute walk, cardiovascular and fitness age.",
    ["vo2_max", "six_minute_walk_test_distance", "cardiovascular_age", "garmin_fitness_age"],
  ],
  "steps.created": ["Step samples.", ["steps"]],
  "calories.created": ["Energy samples (active and basal).", ["active_energy", "basal_energy"]],
  "activity_timeseries.created": [
    "Other activity samples: stand and exercise time, flights, MET, distances, hydration, …",
    [
      "stand_time",
      "exercise_time",
      "physical_effort",
      "flights_climbed",
      "average_met",
      "active_time",
      "push_count",
      "number_of_times_fallen",
      "number_of_alcoholic_beverages",
      "nike_fuel",
      "hydration",
      "distance_walking_running",
      "distance_cycling",
      "distance_swimming",
      "distance_downhill_snow_sports",
      "distance_other",
    ],
  ],
  "workout_metrics.created": [
    "Workout and gait metrics: cadence, power, speed, effort, walking and running dynamics, swimming.",
    [
      "cadence",
      "power",
      "speed",
      "workout_effort_score",
      "estimated_workout_effort_score",
      "walking_step_length",
      "walking_speed",
      "walking_double_support_percentage",
      "walking_asymmetry_percentage",
      "walking_steadiness",
      "stair_descent_speed",
      "stair_ascent_speed",
      "running_power",
      "running_speed",
      "running_vertical_oscillation",
      "running_ground_contact_time",
      "running_stride_length",
      "swimming_stroke_count",
      "underwater_depth",
    ],
  ],
  "environmental.created": [
    "Environment samples: audio exposure, daylight, water and weather temperature, UV, inhaler use.",
    [
      "environmental_audio_exposure",
      "headphone_audio_exposure",
      "environmental_sound_reduction",
      "time_in_daylight",
      "water_temperature",
      "uv_exposure",
      "inhaler_usage",
      "weather_temperature",
      "weather_humidity",
    ],
  ],
};

const KNOWN_CODES = new Set(SERIES_TYPES.map((t) => t.code));

/** The granular event of a series type. */
export const seriesEventName = (code: string) => `series.${code}.created`;

/** Series type code → its group event (only types we store). */
export const GROUP_OF_SERIES: ReadonlyMap<string, string> = new Map(
  Object.entries(GROUPS).flatMap(([group, [, codes]]) =>
    codes.filter((c) => KNOWN_CODES.has(c)).map((c) => [c, group] as const),
  ),
);

const LIFECYCLE: EventType[] = [
  { name: "connection.created", description: "A user connected a provider (also on a reconnect).", child_events: null },
  {
    name: "connection.revoked",
    description: "A connection became invalid (refresh refused, consent withdrawn): the user must authorize again.",
    child_events: null,
  },
  { name: "sync.started", description: "A sync run of a connection started.", child_events: null },
  { name: "sync.completed", description: "A sync run ended, with its status and counts.", child_events: null },
  { name: "sync.failed", description: "A sync run failed, with its error.", child_events: null },
  { name: "workout.created", description: "A workout was recorded.", child_events: null },
  { name: "sleep.created", description: "A sleep session was recorded.", child_events: null },
  { name: "menstrual_cycle.created", description: "A menstrual cycle was recorded.", child_events: null },
  {
    name: "endpoint.disabled",
    description: "An endpoint was disabled after five days in which every delivery attempt failed.",
    child_events: null,
  },
];

/** Every event type, lifecycle and sessions first, then each group followed by its granular events. */
export const EVENT_TYPES: readonly EventType[] = [
  ...LIFECYCLE,
  ...Object.entries(GROUPS).flatMap(([group, [description, codes]]) => {
    const children = codes.filter((c) => KNOWN_CODES.has(c)).map(seriesEventName);
    return [
      { name: group, description, child_events: children },
      ...children.map((name) => ({
        name,
        description: `Samples of ${name.slice("series.".length, -".created".length).replaceAll("_", " ")}.`,
        child_events: null,
      })),
    ];
  }),
];

export const EVENT_TYPE_NAMES: ReadonlySet<string> = new Set(EVENT_TYPES.map((e) => e.name));
