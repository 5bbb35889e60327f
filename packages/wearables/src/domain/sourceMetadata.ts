/**
 * How a data source is shown: the `source` object of samples and events (the anchor's `SourceMetadata`) and
 * the `display_name` of the data sources list. `device_name` is the marketing name of a raw model identifier
 * (`Watch6,12` → "Apple Watch Series 8 45mm"); a model the table does not know is shown as it is, as the
 * anchor does (Garmin, Polar, Suunto report readable names already).
 */

export interface DataSourceFields {
  provider: string;
  source: string | null;
  device_model: string | null;
  device_type: string | null;
  original_source_name?: string | null;
}

export interface SourceMetadata {
  provider: string;
  source: string | null;
  device: string | null;
  device_type: string | null;
  device_name: string | null;
}

/** Apple identifiers of the devices that write health data (watches and recent phones). */
const DEVICE_NAMES: Record<string, string> = {
  "iPhone12,1": "iPhone 11",
  "iPhone12,3": "iPhone 11 Pro",
  "iPhone12,5": "iPhone 11 Pro Max",
  "iPhone12,8": "iPhone SE 2nd Gen",
  "iPhone13,1": "iPhone 12 Mini",
  "iPhone13,2": "iPhone 12",
  "iPhone13,3": "iPhone 12 Pro",
  "iPhone13,4": "iPhone 12 Pro Max",
  "iPhone14,2": "iPhone 13 Pro",
  "iPhone14,3": "iPhone 13 Pro Max",
  "iPhone14,4": "iPhone 13 Mini",
  "iPhone14,5": "iPhone 13",
  "iPhone14,6": "iPhone SE 3rd Gen",
  "iPhone14,7": "iPhone 14",
  "iPhone14,8": "iPhone 14 Plus",
  "iPhone15,2": "iPhone 14 Pro",
  "iPhone15,3": "iPhone 14 Pro Max",
  "iPhone15,4": "iPhone 15",
  "iPhone15,5": "iPhone 15 Plus",
  "iPhone16,1": "iPhone 15 Pro",
  "iPhone16,2": "iPhone 15 Pro Max",
  "iPhone17,1": "iPhone 16 Pro",
  "iPhone17,2": "iPhone 16 Pro Max",
  "iPhone17,3": "iPhone 16",
  "iPhone17,4": "iPhone 16 Plus",
  "iPhone17,5": "iPhone 16e",
  "Watch1,1": "Apple Watch 38mm",
  "Watch1,2": "Apple Watch 42mm",
  "Watch2,6": "Apple Watch Series 1 38mm",
  "Watch2,7": "Apple Watch Series 1 42mm",
  "Watch2,3": "Apple Watch Series 2 38mm",
  "Watch2,4": "Apple Watch Series 2 42mm",
  "Watch3,1": "Apple Watch Series 3 38mm (GPS+Cellular)",
  "Watch3,2": "Apple Watch Series 3 42mm (GPS+Cellular)",
  "Watch3,3": "Apple Watch Series 3 38mm (GPS)",
  "Watch3,4": "Apple Watch Series 3 42mm (GPS)",
  "Watch4,1": "Apple Watch Series 4 40mm (GPS)",
  "Watch4,2": "Apple Watch Series 4 44mm (GPS)",
  "Watch4,3": "Apple Watch Series 4 40mm (GPS+Cellular)",
  "Watch4,4": "Apple Watch Series 4 44mm (GPS+Cellular)",
  "Watch5,1": "Apple Watch Series 5 40mm (GPS)",
  "Watch5,2": "Apple Watch Series 5 44mm (GPS)",
  "Watch5,3": "Apple Watch Series 5 40mm (GPS+Cellular)",
  "Watch5,4": "Apple Watch Series 5 44mm (GPS+Cellular)",
  "Watch5,9": "Apple Watch SE 40mm (GPS)",
  "Watch5,10": "Apple Watch SE 44mm (GPS)",
  "Watch5,11": "Apple Watch SE 40mm (GPS+Cellular)",
  "Watch5,12": "Apple Watch SE 44mm (GPS+Cellular)",
  "Watch6,1": "Apple Watch Series 6 40mm (GPS)",
  "Watch6,2": "Apple Watch Series 6 44mm (GPS)",
  "Watch6,3": "Apple Watch Series 6 40mm (GPS+Cellular)",
  "Watch6,4": "Apple Watch Series 6 44mm (GPS+Cellular)",
  "Watch6,6": "Apple Watch Series 7 41mm (GPS)",
  "Watch6,7": "Apple Watch Series 7 45mm (GPS)",
  "Watch6,8": "Apple Watch Series 7 41mm (GPS+Cellular)",
  "Watch6,9": "Apple Watch Series 7 45mm (GPS+Cellular)",
  "Watch6,10": "Apple Watch SE 40mm (GPS)",
  "Watch6,11": "Apple Watch SE 44mm (GPS)",
  "Watch6,12": "Apple Watch SE 40mm (GPS+Cellular)",
  "Watch6,13": "Apple Watch SE 44mm (GPS+Cellular)",
  "Watch6,14": "Apple Watch Series 8 41mm (GPS)",
  "Watch6,15": "Apple Watch Series 8 45mm (GPS)",
  "Watch6,16": "Apple Watch Series 8 41mm (GPS+Cellular)",
  "Watch6,17": "Apple Watch Series 8 45mm (GPS+Cellular)",
  "Watch6,18": "Apple Watch Ultra",
  "Watch7,1": "Apple Watch Series 9 41mm (GPS)",
  "Watch7,2": "Apple Watch Series 9 45mm (GPS)",
  "Watch7,3": "Apple Watch Series 9 41mm (GPS+Cellular)",
  "Watch7,4": "Apple Watch Series 9 45mm (GPS+Cellular)",
  "Watch7,5": "Apple Watch Ultra 2",
  "Watch7,8": "Apple Watch Series 10 42mm (GPS)",
  "Watch7,9": "Apple Watch Series 10 46mm (GPS)",
  "Watch7,10": "Apple Watch Series 10 42mm (GPS+Cellular)",
  "Watch7,11": "Apple Watch Series 10 46mm (GPS+Cellular)",
  "Watch7,12": "Apple Watch Ultra 3 49mm",
  "Watch7,13": "Apple Watch SE 3 40mm",
  "Watch7,14": "Apple Watch SE 3 44mm",
  "Watch7,15": "Apple Watch SE 3 40mm (GPS+Cellular)",
  "Watch7,16": "Apple Watch SE 3 44mm (GPS+Cellular)",
  "Watch7,17": "Apple Watch Series 11 42mm",
  "Watch7,18": "Apple Watch Series 11 46mm",
  "Watch7,19": "Apple Watch Series 11 42mm (GPS+Cellular)",
  "Watch7,20": "Apple Watch Series 11 46mm (GPS+Cellular)",
};

/** The marketing name of a device model, the model itself when unknown, null without a model. */
export function deviceName(model: string | null | undefined): string | null {
  if (!model) return null;
  return DEVICE_NAMES[model] ?? model;
}

export function sourceMetadata(ds: DataSourceFields): SourceMetadata {
  return {
    provider: ds.provider || "unknown",
    source: ds.source,
    device: ds.device_model,
    device_type: ds.device_type,
    device_name: deviceName(ds.device_model),
  };
}

/** "Garmin - Forerunner 255": the provider capitalised, then the model or else the original source name. */
export function dataSourceDisplayName(ds: DataSourceFields): string {
  const parts: string[] = [];
  if (ds.provider) parts.push(ds.provider.charAt(0).toUpperCase() + ds.provider.slice(1).toLowerCase());
  if (ds.device_model) parts.push(ds.device_model);
  else if (ds.original_source_name) parts.push(ds.original_source_name);
  return parts.length > 0 ? parts.join(" - ") : "Unknown Source";
}
