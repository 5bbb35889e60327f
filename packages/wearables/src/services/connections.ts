/**
 * `GET /users/{user_id}/connections`: a user's provider connections (never their tokens) with what each
 * provider can do (the anchor's `UserConnectionWithCapabilities`): how data arrives (REST pull, webhooks) and
 * the live sync mode that follows from it.
 */
import type { ConnectionRow, ConnectionsStore } from "../store/connectionsRepository.ts";

export interface ProviderCapabilities {
  rest_pull: boolean;
  webhook_stream: boolean;
  webhook_ping: boolean;
  webhook_callback: boolean;
  client_sdk: boolean;
  max_historical_days: number | null;
}

const caps = (c: Partial<ProviderCapabilities>): ProviderCapabilities => ({
  rest_pull: false,
  webhook_stream: false,
  webhook_ping: false,
  webhook_callback: false,
  client_sdk: false,
  max_historical_days: null,
  ...c,
});

/** The anchor's provider capabilities (reference §2). */
export const PROVIDER_CAPABILITIES: Readonly<Record<string, ProviderCapabilities>> = {
  garmin: caps({ webhook_stream: true, webhook_callback: true, max_historical_days: 30 }),
  polar: caps({ rest_pull: true, webhook_ping: true }),
  suunto: caps({ rest_pull: true, webhook_stream: true }),
  whoop: caps({ rest_pull: true, webhook_ping: true }),
  oura: caps({ rest_pull: true, webhook_ping: true }),
  strava: caps({ rest_pull: true, webhook_ping: true }),
  fitbit: caps({ rest_pull: true }),
  ultrahuman: caps({ rest_pull: true }),
  sensorbio: caps({ rest_pull: true }),
  google_health: caps({ client_sdk: true, rest_pull: true, webhook_ping: true }),
  withings: caps({ rest_pull: true, webhook_ping: true }),
  health_connect: caps({ client_sdk: true }),
  apple: caps({ client_sdk: true }),
  samsung: caps({ client_sdk: true }),
};

/** The anchor's default: pull when the provider can be pulled, none for SDK-only ones, else webhook. */
export function liveSyncMode(c: ProviderCapabilities): "pull" | "webhook" | null {
  if (c.rest_pull) return "pull";
  if (c.client_sdk) return null;
  if (c.webhook_ping || c.webhook_stream) return "webhook";
  return null;
}

export interface ConnectionWithCapabilities
  extends Omit<ConnectionRow, "last_synced_at" | "created_at" | "updated_at"> {
  last_synced_at: string | null;
  created_at: string;
  updated_at: string;
  icon_url: string | null;
  max_historical_days: number | null;
  rest_pull: boolean;
  webhook_stream: boolean;
  webhook_ping: boolean;
  webhook_callback: boolean;
  live_sync_mode: "pull" | "webhook" | null;
}

export function createConnectionsService(connections: Pick<ConnectionsStore, "listForUser">) {
  return {
    /** The user's connections, oldest first; an unknown user has none. */
    async list(userId: string): Promise<ConnectionWithCapabilities[]> {
      const rows = await connections.listForUser(userId);
      return rows.map((c) => {
        const known = PROVIDER_CAPABILITIES[c.provider];
        return {
          ...c,
          last_synced_at: c.last_synced_at?.toISOString() ?? null,
          created_at: c.created_at.toISOString(),
          updated_at: c.updated_at.toISOString(),
          icon_url: known ? `/static/provider-icons/${c.provider}.svg` : null,
          max_historical_days: known?.max_historical_days ?? null,
          rest_pull: known?.rest_pull ?? false,
          webhook_stream: known?.webhook_stream ?? false,
          webhook_ping: known?.webhook_ping ?? false,
          webhook_callback: known?.webhook_callback ?? false,
          live_sync_mode: known ? liveSyncMode(known) : null,
          linked_user_ids: c.linked_user_ids ?? [],
        };
      });
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
