/**
 * Which source a daily summary shows when several recorded the same day (the anchor's `_filter_by_priority`,
 * reference §3): per date, the entry with the lowest (provider priority, device type priority, device model);
 * a provider or device type missing from the priority tables ranks 99. The device type is inferred from the
 * device model as the anchor does, not read from the data source. Sources are not merged (an iPhone's and a
 * Watch's steps stay apart, as at the anchor).
 */

export type DeviceType = "watch" | "band" | "phone" | "scale" | "ring" | "other" | "unknown";

/** Lower = preferred; from `wearables.provider_priorities` and `wearables.device_type_priorities`. */
export interface PriorityOrder {
  providers: ReadonlyMap<string, number>;
  deviceTypes: ReadonlyMap<string, number>;
}

/** An entry of one source for one date. */
export interface PrioritizedEntry {
  date: string;
  provider: string | null;
  deviceModel: string | null;
}

const UNRANKED = 99;

const GARMIN = ["forerunner", "fenix", "venu", "epix", "enduro", "instinct", "tactix", "approach"];
const POLAR = ["vantage", "grit x", "pacer", "ignite", "unite"];
const SUUNTO = ["suunto", "vertical", "race", "peak"];

/** The anchor's `infer_device_type_from_model` (Apple product codes, then keywords and brand families). */
export function inferDeviceType(deviceModel: string | null | undefined): DeviceType {
  if (!deviceModel) return "unknown";
  const lower = deviceModel.toLowerCase();
  if (deviceModel.startsWith("Watch")) return "watch";
  if (deviceModel.startsWith("iPhone") || deviceModel.startsWith("iPad")) return "phone";
  if (lower.includes("watch")) return "watch";
  if (lower.includes("band") || lower.includes("vivosmart") || lower.includes("vivofit")) return "band";
  if (lower.includes("ring") || lower.includes("oura")) return "ring";
  if (lower.includes("phone")) return "phone";
  if (lower.includes("scale") || lower.includes("index")) return "scale";
  if ([...GARMIN, ...POLAR, ...SUUNTO].some((x) => lower.includes(x))) return "watch";
  if (lower.includes("whoop")) return "band";
  return "other";
}

/** The sort key of an entry: (provider priority, device type priority, device model). */
export function priorityKey(entry: PrioritizedEntry, order: PriorityOrder): [number, number, string] {
  const provider = order.providers.get(entry.provider ?? "unknown") ?? UNRANKED;
  const deviceType = entry.deviceModel
    ? (order.deviceTypes.get(inferDeviceType(entry.deviceModel)) ?? UNRANKED)
    : UNRANKED;
  return [provider, deviceType, entry.deviceModel ?? ""];
}

function compareKeys(a: [number, number, string], b: [number, number, string]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[1] !== b[1]) return a[1] - b[1];
  return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
}

/**
 * The best entry of each date, in ascending date order. Ties (same key) keep the first entry given, as the
 * anchor's stable sort does.
 */
export function bestPerDate<T extends PrioritizedEntry>(entries: readonly T[], order: PriorityOrder): T[] {
  const best = new Map<string, { entry: T; key: [number, number, string] }>();
  for (const entry of entries) {
    const key = priorityKey(entry, order);
    const current = best.get(entry.date);
    if (!current || compareKeys(key, current.key) < 0) best.set(entry.date, { entry, key });
  }
  return [...best.values()].map((b) => b.entry).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}
