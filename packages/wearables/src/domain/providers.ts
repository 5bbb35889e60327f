/**
 * The anchor's `ProviderName` as of 0.9 (`google` became `google_health`; `health_connect` and `withings` are
 * new), then this platform's `sandbox` (its offline test vendor, whose data carries its name). Providers are
 * stored by name: migration 0004 renamed the stored `google` rows.
 */
export const PROVIDER_NAMES = [
  "apple",
  "samsung",
  "garmin",
  "health_connect",
  "google_health",
  "polar",
  "suunto",
  "whoop",
  "strava",
  "oura",
  "fitbit",
  "ultrahuman",
  "sensorbio",
  "withings",
  "unknown",
  "internal",
  "sandbox",
] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Names the anchor retired in 0.9, accepted on input for the new one; answers carry the new name. */
export const RETIRED_PROVIDER_NAMES: Readonly<Record<string, ProviderName>> = { google: "google_health" };

/** Every provider name accepted on input: the 0.9 names, then the retired ones. */
export const PROVIDER_INPUT_NAMES: readonly string[] = [...PROVIDER_NAMES, ...Object.keys(RETIRED_PROVIDER_NAMES)];

/** The 0.9 name of a provider name given on input (a retired name maps to its successor). */
export const currentProviderName = (name: string): string => RETIRED_PROVIDER_NAMES[name] ?? name;
