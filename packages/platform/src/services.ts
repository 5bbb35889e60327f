/** Every service the platform can run, by name. A new service package is added here. */
import type { ServiceDefinition } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";

export const allServices: ServiceDefinition[] = [wearablesService];

export const serviceNames = () => allServices.map((s) => s.name);

export function findService(name: string): ServiceDefinition | undefined {
  return allServices.find((s) => s.name === name);
}
