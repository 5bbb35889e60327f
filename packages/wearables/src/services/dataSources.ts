/** `GET /users/{user_id}/data-sources`: the devices and apps a user's data came from, with a display name. */
import { dataSourceDisplayName } from "../domain/sourceMetadata.ts";
import type { DataSourcesRepository } from "../store/dataSourcesRepository.ts";

export interface DataSourceItem {
  id: string;
  user_id: string;
  provider: string;
  user_connection_id: string | null;
  device_model: string | null;
  software_version: string | null;
  source: string | null;
  device_type: string | null;
  original_source_name: string | null;
  display_name: string;
}

export function createDataSourcesService(dataSources: DataSourcesRepository) {
  return {
    /** The anchor's `{items, total}`; empty for an unknown user. */
    async list(userId: string): Promise<{ items: DataSourceItem[]; total: number }> {
      const rows = await dataSources.listForUser(userId);
      const items = rows.map(({ key: _key, ...ds }) => ({ ...ds, display_name: dataSourceDisplayName(ds) }));
      return { items, total: items.length };
    },
  };
}

export type DataSourcesService = ReturnType<typeof createDataSourcesService>;
