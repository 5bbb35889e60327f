/** SQL for the data sources list of a user (`wearables.data_sources`, one row per device and app identity). */
import type { Queryable } from "@platform/kernel";

export interface DataSourceRow {
  id: string;
  key: number;
  user_id: string;
  provider: string;
  user_connection_id: string | null;
  device_model: string | null;
  software_version: string | null;
  source: string | null;
  device_type: string | null;
  original_source_name: string | null;
}

export function createDataSourcesRepository(db: Queryable) {
  return {
    /** Every data source of the user, by provider then device model (the anchor's order); none for an unknown user. */
    listForUser: (userId: string): Promise<DataSourceRow[]> =>
      db.query<DataSourceRow>(
        `SELECT id, key, user_id, provider, user_connection_id, device_model, software_version, source, device_type,
                original_source_name
         FROM wearables.data_sources WHERE user_id = $1
         ORDER BY provider, device_model NULLS LAST, key`,
        [userId],
      ),
  };
}

export type DataSourcesRepository = ReturnType<typeof createDataSourcesRepository>;
