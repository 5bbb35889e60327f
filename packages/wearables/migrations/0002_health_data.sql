-- The health data model (Open Wearables' data model, reference §1.4–1.5), laid out for years of per-second
-- samples of many users:
-- - samples: one narrow row per (data source, series type, instant) — a 4-byte data source key, a 2-byte
--   series type, the instant, a 4-byte float value, the zone offset in minutes — with the primary key on
--   (source, type, time): the anchor's deduplication rule and the index every range read walks. About half
--   the anchor's bytes per sample (its row has two uuids, numeric and varchar values and a second unique index).
-- - events (workouts and sleep sessions) with their details, health scores, data sources, personal records.
-- - import jobs (file imports with progress and a resumable checkpoint) and the nights whose scores to redo.

CREATE TABLE wearables.personal_records (
  user_id uuid PRIMARY KEY REFERENCES wearables.users (id) ON DELETE CASCADE,
  birth_date date,
  -- The anchor's: true = male.
  sex boolean,
  gender varchar(32),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One per (user, provider, device model, source app), created as data arrives.
CREATE TABLE wearables.data_sources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The compact key samples store (4 bytes instead of a 16-byte uuid per sample).
  key integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  provider varchar(50) NOT NULL,
  user_connection_id uuid REFERENCES wearables.user_connections (id) ON DELETE SET NULL,
  device_model varchar(100),
  software_version varchar(50),
  source varchar(100),
  device_type varchar(32),
  original_source_name varchar(100),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX data_sources_identity_key
  ON wearables.data_sources (user_id, provider, coalesce(device_model, ''), coalesce(source, ''));

-- The anchor's series types with their stable ids (domain/seriesTypes.ts is the same list).
CREATE TABLE wearables.series_types (
  id smallint PRIMARY KEY,
  code varchar(64) NOT NULL UNIQUE,
  unit varchar(10) NOT NULL,
  aggregation text NOT NULL CHECK (aggregation IN ('sum', 'avg', 'max'))
);
INSERT INTO wearables.series_types (id, code, unit, aggregation) VALUES
  (1, 'heart_rate', 'bpm', 'avg'),
  (2, 'resting_heart_rate', 'bpm', 'avg'),
  (3, 'heart_rate_variability_sdnn', 'ms', 'avg'),
  (4, 'heart_rate_recovery_one_minute', 'bpm', 'avg'),
  (5, 'walking_heart_rate_average', 'bpm', 'avg'),
  (7, 'heart_rate_variability_rmssd', 'ms', 'avg'),
  (20, 'oxygen_saturation', 'percent', 'avg'),
  (21, 'blood_glucose', 'mg_dl', 'avg'),
  (22, 'blood_pressure_systolic', 'mmHg', 'avg'),
  (23, 'blood_pressure_diastolic', 'mmHg', 'avg'),
  (24, 'respiratory_rate', 'brpm', 'avg'),
  (25, 'sleeping_breathing_disturbances', 'count', 'sum'),
  (26, 'blood_alcohol_content', 'mg_dl', 'avg'),
  (27, 'peripheral_perfusion_index', 'score', 'avg'),
  (28, 'forced_vital_capacity', 'liters', 'avg'),
  (29, 'forced_expiratory_volume_1', 'liters', 'avg'),
  (30, 'peak_expiratory_flow_rate', 'L/min', 'avg'),
  (31, 'breathing_disturbance_index', 'score', 'avg'),
  (40, 'height', 'cm', 'avg'),
  (41, 'weight', 'kg', 'avg'),
  (42, 'body_fat_percentage', 'percent', 'avg'),
  (43, 'body_mass_index', 'kg_m2', 'avg'),
  (44, 'lean_body_mass', 'kg', 'avg'),
  (45, 'body_temperature', 'celsius', 'avg'),
  (46, 'skin_temperature', 'celsius', 'avg'),
  (47, 'waist_circumference', 'cm', 'avg'),
  (48, 'body_fat_mass', 'kg', 'avg'),
  (49, 'skeletal_muscle_mass', 'kg', 'avg'),
  (50, 'skin_temperature_deviation', 'celsius', 'avg'),
  (51, 'skin_temperature_trend_deviation', 'celsius', 'avg'),
  (60, 'vo2_max', 'ml_kg_min', 'avg'),
  (61, 'six_minute_walk_test_distance', 'meters', 'max'),
  (62, 'cardiovascular_age', 'years', 'avg'),
  (80, 'steps', 'count', 'sum'),
  (81, 'energy', 'kcal', 'sum'),
  (82, 'basal_energy', 'kcal', 'sum'),
  (83, 'stand_time', 'min', 'sum'),
  (84, 'exercise_time', 'min', 'sum'),
  (85, 'physical_effort', 'score', 'avg'),
  (86, 'flights_climbed', 'count', 'sum'),
  (87, 'average_met', 'met', 'avg'),
  (88, 'active_time', 'min', 'sum'),
  (100, 'distance_walking_running', 'meters', 'sum'),
  (101, 'distance_cycling', 'meters', 'sum'),
  (102, 'distance_swimming', 'meters', 'sum'),
  (103, 'distance_downhill_snow_sports', 'meters', 'sum'),
  (104, 'distance_other', 'meters', 'sum'),
  (120, 'walking_step_length', 'cm', 'avg'),
  (121, 'walking_speed', 'm_per_s', 'avg'),
  (122, 'walking_double_support_percentage', 'percent', 'avg'),
  (123, 'walking_asymmetry_percentage', 'percent', 'avg'),
  (124, 'walking_steadiness', 'percent', 'avg'),
  (125, 'stair_descent_speed', 'm_per_s', 'avg'),
  (126, 'stair_ascent_speed', 'm_per_s', 'avg'),
  (140, 'running_power', 'watts', 'avg'),
  (141, 'running_speed', 'm_per_s', 'avg'),
  (142, 'running_vertical_oscillation', 'cm', 'avg'),
  (143, 'running_ground_contact_time', 'ms', 'avg'),
  (144, 'running_stride_length', 'cm', 'avg'),
  (145, 'running_vertical_ratio', 'percent', 'avg'),
  (146, 'running_stance_time_balance', 'percent', 'avg'),
  (160, 'swimming_stroke_count', 'count', 'sum'),
  (161, 'underwater_depth', 'meters', 'avg'),
  (180, 'cadence', 'rpm', 'avg'),
  (181, 'power', 'watts', 'avg'),
  (182, 'speed', 'm_per_s', 'avg'),
  (183, 'workout_effort_score', 'score', 'avg'),
  (184, 'estimated_workout_effort_score', 'score', 'avg'),
  (200, 'environmental_audio_exposure', 'dB', 'avg'),
  (201, 'headphone_audio_exposure', 'dB', 'avg'),
  (202, 'environmental_sound_reduction', 'dB', 'avg'),
  (203, 'time_in_daylight', 'min', 'sum'),
  (204, 'water_temperature', 'celsius', 'avg'),
  (205, 'uv_exposure', 'count', 'sum'),
  (206, 'inhaler_usage', 'count', 'sum'),
  (207, 'weather_temperature', 'celsius', 'avg'),
  (208, 'weather_humidity', 'percent', 'avg'),
  (209, 'elevation', 'meters', 'avg'),
  (210, 'latitude', 'deg', 'avg'),
  (211, 'longitude', 'deg', 'avg'),
  (212, 'air_temperature', 'celsius', 'avg'),
  (220, 'garmin_stress_level', 'score', 'avg'),
  (221, 'garmin_skin_temperature', 'celsius', 'avg'),
  (222, 'garmin_fitness_age', 'years', 'avg'),
  (223, 'garmin_body_battery', 'percent', 'avg'),
  (500, 'electrodermal_activity', 'count', 'avg'),
  (501, 'push_count', 'count', 'sum'),
  (502, 'atrial_fibrillation_burden', 'percent', 'avg'),
  (503, 'insulin_delivery', 'count', 'sum'),
  (504, 'number_of_times_fallen', 'count', 'sum'),
  (505, 'number_of_alcoholic_beverages', 'count', 'sum'),
  (506, 'nike_fuel', 'count', 'sum'),
  (507, 'hydration', 'mL', 'sum');

CREATE TABLE wearables.samples (
  source_key integer NOT NULL REFERENCES wearables.data_sources (key) ON DELETE CASCADE,
  series_type smallint NOT NULL,
  recorded_at timestamptz NOT NULL,
  value real NOT NULL,
  -- Minutes east of UTC of the device's clock at the sample (the anchor's "+01:00" as a number), or NULL.
  zone_offset smallint,
  -- For `sum` types: true = the provider's daily total, false/NULL = an intraday sample (the anchor's).
  is_daily_total boolean,
  PRIMARY KEY (source_key, series_type, recorded_at)
);

-- Workouts and sleep sessions.
CREATE TABLE wearables.events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  data_source_id uuid NOT NULL REFERENCES wearables.data_sources (id) ON DELETE CASCADE,
  external_id varchar(100),
  category varchar(32) NOT NULL CHECK (category IN ('workout', 'sleep')),
  -- A workout type of the anchor's (running, cycling, …) or `sleep_session`.
  type varchar(32) NOT NULL,
  source_name varchar(64),
  duration_seconds integer NOT NULL,
  start_datetime timestamptz NOT NULL,
  end_datetime timestamptz NOT NULL,
  zone_offset varchar(10),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (data_source_id, start_datetime, end_datetime),
  CHECK (end_datetime >= start_datetime)
);
CREATE INDEX events_user_category_start_idx ON wearables.events (user_id, category, start_datetime DESC, id DESC);

CREATE TABLE wearables.workout_details (
  event_id uuid PRIMARY KEY REFERENCES wearables.events (id) ON DELETE CASCADE,
  heart_rate_min integer,
  heart_rate_max integer,
  heart_rate_avg numeric(5, 2),
  energy_burned numeric(10, 3),
  distance numeric(10, 3),
  steps_count integer,
  max_speed numeric(7, 3),
  max_watts numeric(7, 2),
  moving_time_seconds integer,
  total_elevation_gain numeric(10, 3),
  average_speed numeric(7, 3),
  average_cadence numeric(7, 2),
  average_watts numeric(7, 2),
  elev_high numeric(10, 3),
  elev_low numeric(10, 3)
);

CREATE TABLE wearables.sleep_details (
  event_id uuid PRIMARY KEY REFERENCES wearables.events (id) ON DELETE CASCADE,
  sleep_total_duration_minutes integer,
  sleep_time_in_bed_minutes integer,
  sleep_efficiency_score numeric(5, 2),
  sleep_deep_minutes integer,
  sleep_rem_minutes integer,
  sleep_light_minutes integer,
  sleep_awake_minutes integer,
  is_nap boolean NOT NULL DEFAULT false,
  -- [{stage, start_time, end_time}], stage ∈ in_bed, awake, sleeping, light, deep, rem, unknown.
  sleep_stages jsonb NOT NULL DEFAULT '[]'
);

CREATE TABLE wearables.health_scores (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  data_source_id uuid REFERENCES wearables.data_sources (id) ON DELETE SET NULL,
  provider varchar(50) NOT NULL,
  category varchar(32) NOT NULL,
  value numeric(6, 3) NOT NULL,
  qualifier varchar(32),
  recorded_at timestamptz NOT NULL,
  zone_offset varchar(10),
  components jsonb,
  sleep_event_id uuid REFERENCES wearables.events (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, provider, category, recorded_at)
);
CREATE INDEX health_scores_user_time_idx ON wearables.health_scores (user_id, recorded_at DESC, id DESC);

-- Source priority (lower = preferred), as the anchor's defaults.
CREATE TABLE wearables.provider_priorities (provider varchar(50) PRIMARY KEY, priority integer NOT NULL);
INSERT INTO wearables.provider_priorities (provider, priority) VALUES
  ('apple', 1), ('garmin', 2), ('polar', 3), ('suunto', 4), ('whoop', 5);
CREATE TABLE wearables.device_type_priorities (device_type varchar(32) PRIMARY KEY, priority integer NOT NULL);
INSERT INTO wearables.device_type_priorities (device_type, priority) VALUES
  ('watch', 1), ('band', 2), ('ring', 3), ('phone', 4), ('scale', 5), ('other', 6), ('unknown', 99);

-- File imports: one job per uploaded file, run by a worker that holds its lease; `checkpoint` is where a
-- killed job resumes (what is before it is committed, what is after it is not).
CREATE TABLE wearables.import_jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('apple_xml', 'apple_zip', 'fit', 'gpx', 'tcx')),
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'processing', 'completed', 'failed')),
  file_path text NOT NULL,
  file_name text,
  file_bytes bigint NOT NULL DEFAULT 0,
  bytes_read bigint NOT NULL DEFAULT 0,
  items_processed bigint NOT NULL DEFAULT 0,
  samples_written bigint NOT NULL DEFAULT 0,
  events_written bigint NOT NULL DEFAULT 0,
  checkpoint jsonb,
  errors jsonb NOT NULL DEFAULT '[]',
  lease_holder text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX import_jobs_user_idx ON wearables.import_jobs (user_id, created_at DESC);
CREATE INDEX import_jobs_pending_idx ON wearables.import_jobs (created_at) WHERE state IN ('queued', 'processing');

-- Nights whose internal scores (sleep, resilience) must be computed again: written with the data that changes
-- them, drained by the scores job (a restart finds what is left here).
CREATE TABLE wearables.score_work (
  user_id uuid NOT NULL REFERENCES wearables.users (id) ON DELETE CASCADE,
  -- The local wake-up date of the night.
  night date NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, night)
);
