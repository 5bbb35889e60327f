/** Every service the platform can run, by name. A new service package is added here. */
import { brokerageService } from "@platform/brokerage";
import { chainstatsService } from "@platform/chainstats";
import { crosschainService } from "@platform/crosschain";
import type { ServiceDefinition } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";

export const allServices: ServiceDefinition[] = [
  wearablesService,
  crosschainService,
  brokerageService,
  chainstatsService,
];

export const serviceNames = () => allServices.map((s) => s.name);

export function findService(name: string): ServiceDefinition | undefined {
  return allServices.find((s) => s.name === name);
}

/** The service called `name`, or an error naming the ones that exist. */
export function requireService(name: string): ServiceDefinition {
  const service = findService(name);
  if (!service) throw new Error(`Unknown service "${name}"; one of: ${serviceNames().join(", ")}`);
  return service;
}

/** Checks a key request; returns the plan to store, or throws a message for the operator. */
export function keyPlanFor(serviceName: string, plan: string | undefined | null): string | null {
  const service = requireService(serviceName);
  if (!service.plans) {
    if (plan) throw new Error(`Service "${serviceName}" has no plans`);
    return null;
  }
  if (!plan) return service.plans[0] ?? null;
  if (!service.plans.includes(plan)) {
    throw new Error(`Unknown plan "${plan}" for ${serviceName}; one of: ${service.plans.join(", ")}`);
  }
  return plan;
}
