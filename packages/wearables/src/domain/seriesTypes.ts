/**
 * The timeseries types of the anchor (Open Wearables `SeriesType`, reference §1.5): a stable numeric id (it is
 * what samples store), the code the API speaks, the unit of stored values, and how samples of the type combine
 * over time (`sum` for counts and amounts, `avg` for rates and levels, `max` for tests) — what `resolution`
 * aggregation and daily summaries use.
 */

export type Aggregation = "sum" | "avg" | "max";

export interface SeriesType {
  id: number;
  code: string;
  unit: string;
  aggregation: Aggregation;
}

const t = (id: number, code: string, unit: string, aggregation: Aggregation = "avg"): SeriesType => ({
  id,
  code,
  unit,
  aggregation,
});

/** Every series type, by id order (ids are persisted: never renumber). */
export const SERIES_TYPES: readonly SeriesType[] = [
  t(1, "heart_rate", "bpm"),
  t(2, "resting_heart_rate", "bpm"),
  t(3, "heart_rate_variability_sdnn", "ms"),
  t(4, "heart_rate_recovery_one_minute", "bpm"),
  t(5, "walking_heart_rate_average", "bpm"),
  t(7, "heart_rate_variability_rmssd", "ms"),
  t(20, "oxygen_saturation", "percent"),
  t(21, "blood_glucose", "mg_dl"),
  t(22, "blood_pressure_systolic", "mmHg"),
  t(23, "blood_pressure_diastolic", "mmHg"),
  t(24, "respiratory_rate", "brpm"),
  t(25, "sleeping_breathing_disturbances", "count", "sum"),
  t(26, "blood_alcohol_content", "mg_dl"),
  t(27, "peripheral_perfusion_index", "score"),
  t(28, "forced_vital_capacity", "liters"),
  t(29, "forced_expiratory_volume_1", "liters"),
  t(30, "peak_expiratory_flow_rate", "L/min"),
  t(31, "breathing_disturbance_index", "score"),
  t(40, "height", "cm"),
  t(41, "weight", "kg"),
  t(42, "body_fat_percentage", "percent"),
  t(43, "body_mass_index", "kg_m2"),
  t(44, "lean_body_mass", "kg"),
  t(45, "body_temperature", "celsius"),
  t(46, "skin_temperature", "celsius"),
  t(47, "waist_circumference", "cm"),
  t(48, "body_fat_mass", "kg"),
  t(49, "skeletal_muscle_mass", "kg"),
  t(50, "skin_temperature_deviation", "celsius"),
  t(51, "skin_temperature_trend_deviation", "celsius"),
  t(52, "bone_mass", "kg"),
  t(53, "body_water_mass", "kg"),
  t(60, "vo2_max", "ml_kg_min"),
  t(61, "six_minute_walk_test_distance", "meters", "max"),
  t(62, "cardiovascular_age", "years"),
  t(80, "steps", "count", "sum"),
  t(81, "active_energy", "kcal", "sum"),
  t(82, "basal_energy", "kcal", "sum"),
  t(83, "stand_time", "min", "sum"),
  t(84, "exercise_time", "min", "sum"),
  t(85, "physical_effort", "score"),
  t(86, "flights_climbed", "count", "sum"),
  t(87, "average_met", "met"),
  t(88, "active_time", "min", "sum"),
  t(100, "distance_walking_running", "meters", "sum"),
  t(101, "distance_cycling", "meters", "sum"),
  t(102, "distance_swimming", "meters", "sum"),
  t(103, "distance_downhill_snow_sports", "meters", "sum"),
  t(104, "distance_other", "meters", "sum"),
  t(120, "walking_step_length", "cm"),
  t(121, "walking_speed", "m_per_s"),
  t(122, "walking_double_support_percentage", "percent"),
  t(123, "walking_asymmetry_percentage", "percent"),
  t(124, "walking_steadiness", "percent"),
  t(125, "stair_descent_speed", "m_per_s"),
  t(126, "stair_ascent_speed", "m_per_s"),
  t(140, "running_power", "watts"),
  t(141, "running_speed", "m_per_s"),
  t(142, "running_vertical_oscillation", "cm"),
  t(143, "running_ground_contact_time", "ms"),
  t(144, "running_stride_length", "cm"),
  t(145, "running_vertical_ratio", "percent"),
  t(146, "running_stance_time_balance", "percent"),
  t(160, "swimming_stroke_count", "count", "sum"),
  t(161, "underwater_depth", "meters"),
  t(180, "cadence", "rpm"),
  t(181, "power", "watts"),
  t(182, "speed", "m_per_s"),
  t(183, "workout_effort_score", "score"),
  t(184, "estimated_workout_effort_score", "score"),
  t(200, "environmental_audio_exposure", "dB"),
  t(201, "headphone_audio_exposure", "dB"),
  t(202, "environmental_sound_reduction", "dB"),
  t(203, "time_in_daylight", "min", "sum"),
  t(204, "water_temperature", "celsius"),
  t(205, "uv_exposure", "count", "sum"),
  t(206, "inhaler_usage", "count", "sum"),
  t(207, "weather_temperature", "celsius"),
  t(208, "weather_humidity", "percent"),
  t(209, "elevation", "meters"),
  t(210, "latitude", "deg"),
  t(211, "longitude", "deg"),
  t(212, "air_temperature", "celsius"),
  t(220, "garmin_stress_level", "score"),
  t(221, "garmin_skin_temperature", "celsius"),
  t(222, "garmin_fitness_age", "years"),
  t(223, "garmin_body_battery", "percent"),
  t(240, "withings_pulse_wave_velocity", "m_per_s"),
  t(241, "withings_metabolic_age", "years"),
  t(500, "electrodermal_activity", "count"),
  t(501, "push_count", "count", "sum"),
  t(502, "atrial_fibrillation_burden", "percent"),
  t(503, "insulin_delivery", "count", "sum"),
  t(504, "number_of_times_fallen", "count", "sum"),
  t(505, "number_of_alcoholic_beverages", "count", "sum"),
  t(506, "nike_fuel", "count", "sum"),
  t(507, "hydration", "mL", "sum"),
];

/**
 * Names the anchor retired in 0.9, accepted on input for the new one (answers always carry the new name; stored
 * samples hold the id, so nothing stored changes): `energy` became `active_energy`.
 */
export const RETIRED_SERIES_TYPE_CODES: Readonly<Record<string, string>> = { energy: "active_energy" };

const BY_CODE = new Map(SERIES_TYPES.map((s) => [s.code, s]));
const BY_ID = new Map(SERIES_TYPES.map((s) => [s.id, s]));

/** The series type of an API code (`heart_rate`, or a retired name such as `energy`), or undefined. */
export const seriesTypeByCode = (code: string): SeriesType | undefined =>
  BY_CODE.get(RETIRED_SERIES_TYPE_CODES[code] ?? code);
/** The series type of a stored id, or undefined. */
export const seriesTypeById = (id: number): SeriesType | undefined => BY_ID.get(id);
