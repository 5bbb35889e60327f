-- Open Wearables 0.9 renamed provider `google` to `google_health`: stored names follow, so answers and filters
-- speak the new name (the API still accepts `google` on input). No row can hold `google_health` yet, so the
-- unique keys holding the provider cannot collide.
UPDATE wearables.data_sources SET provider = 'google_health' WHERE provider = 'google';
UPDATE wearables.health_scores SET provider = 'google_health' WHERE provider = 'google';
UPDATE wearables.user_connections SET provider = 'google_health' WHERE provider = 'google';
UPDATE wearables.provider_priorities SET provider = 'google_health' WHERE provider = 'google';
