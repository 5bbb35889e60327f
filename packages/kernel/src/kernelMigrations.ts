import { loadMigrations } from "./db/migrate.ts";

/** The platform schema's own migrations (API keys), applied before any service's. */
export const kernelMigrations = () => loadMigrations("platform", new URL("../migrations", import.meta.url).pathname);
